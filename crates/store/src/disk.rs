//! The disk under reel's files: whether a write failed because it is full, how much room is
//! left, and (in tests) a full disk injected at one write site.

use std::path::Path;

/// Whether an I/O error says the disk (or the user's quota) is full.
pub fn is_full(e: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    matches!(e.kind(), ErrorKind::StorageFull | ErrorKind::QuotaExceeded)
        || matches!(e.raw_os_error(), Some(code) if code == libc::ENOSPC || code == libc::EDQUOT)
}

/// Bytes free to an unprivileged writer on the file system holding `dir`.
pub fn free_bytes(dir: &Path) -> Option<u64> {
    let st = rustix::fs::statvfs(dir).ok()?;
    Some(st.f_bavail.saturating_mul(st.f_frsize))
}

/// Write sites whose failure can be injected in tests (see [`inject`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Site {
    /// A downloaded file's bytes.
    File,
    /// The `.json` sidecar beside a saved file.
    Sidecar,
    /// The provenance written into a saved file.
    Provenance,
    /// A line of the log file.
    Log,
}

/// Fails like a full disk if a test armed `site` for a folder holding `path`.
#[cfg(any(test, feature = "faults"))]
pub fn check(site: Site, path: &Path) -> std::io::Result<()> {
    inject::check(site, path)
}

/// Fails like a full disk if a test armed `site` for a folder holding `path`.
#[cfg(not(any(test, feature = "faults")))]
#[inline(always)]
pub fn check(_site: Site, _path: &Path) -> std::io::Result<()> {
    Ok(())
}

/// A full disk at one write site, for one folder, in tests: the same error the kernel gives.
#[cfg(any(test, feature = "faults"))]
pub mod inject {
    use std::path::{Path, PathBuf};
    use std::sync::Mutex;

    use super::Site;

    static ARMED: Mutex<Vec<(Site, PathBuf)>> = Mutex::new(Vec::new());

    /// From now on writes at `site` under `dir` fail with ENOSPC.
    pub fn arm(site: Site, dir: &Path) {
        ARMED.lock().unwrap_or_else(|e| e.into_inner()).push((site, dir.to_path_buf()));
    }

    /// Writes under `dir` work again, at every site.
    pub fn disarm(dir: &Path) {
        ARMED.lock().unwrap_or_else(|e| e.into_inner()).retain(|(_, d)| d != dir);
    }

    pub(super) fn check(site: Site, path: &Path) -> std::io::Result<()> {
        let armed = ARMED.lock().unwrap_or_else(|e| e.into_inner());
        if armed.iter().any(|(s, dir)| *s == site && path.starts_with(dir)) {
            return Err(std::io::Error::from_raw_os_error(libc::ENOSPC));
        }
        Ok(())
    }
}

/// A small tmpfs of its own for a test (Linux, as root); `None` elsewhere, except in CI
/// (`CI` set), where a test that needs one must not pass without it.
#[doc(hidden)]
pub mod testing {
    use std::path::Path;
    use std::process::Command;

    pub struct Tmpfs {
        dir: tempfile::TempDir,
    }

    impl Tmpfs {
        pub fn mount(bytes: u64) -> Option<Tmpfs> {
            let dir = tempfile::tempdir().ok()?;
            let mounted = Command::new("mount")
                .args(["-t", "tmpfs", "-o", &format!("size={bytes}"), "tmpfs"])
                .arg(dir.path())
                .output()
                .is_ok_and(|o| o.status.success());
            if !mounted {
                assert!(std::env::var_os("CI").is_none(), "CI must be able to mount a tmpfs (run as root)");
                return None;
            }
            Some(Tmpfs { dir })
        }

        pub fn path(&self) -> &Path {
            self.dir.path()
        }
    }

    impl Drop for Tmpfs {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(self.dir.path()).status();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_disks_are_told_from_other_failures() {
        let io = |code| std::io::Error::from_raw_os_error(code);
        let cases: Vec<(std::io::Error, bool)> = vec![
            (io(libc::ENOSPC), true),
            (io(libc::EDQUOT), true),
            (std::io::Error::from(std::io::ErrorKind::StorageFull), true),
            (io(libc::EACCES), false),
            (io(libc::ENOENT), false),
            (std::io::Error::other("no"), false),
        ];
        for (e, want) in cases {
            assert_eq!(is_full(&e), want, "{e}");
        }
    }

    #[test]
    fn an_armed_site_fails_only_under_its_folder() {
        let dir = tempfile::tempdir().expect("tempdir");
        inject::arm(Site::Sidecar, dir.path());
        let inside = dir.path().join("a/b.json");
        let err = check(Site::Sidecar, &inside).expect_err("armed");
        assert!(is_full(&err), "{err}");
        assert!(check(Site::File, &inside).is_ok(), "another site");
        assert!(check(Site::Sidecar, Path::new("/elsewhere/b.json")).is_ok(), "another folder");
        inject::disarm(dir.path());
        assert!(check(Site::Sidecar, &inside).is_ok(), "disarmed");
    }
}
