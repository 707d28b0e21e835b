//! The preview cache on disk: `<cache dir>/<sha[0..2]>/<sha256>/` holding `poster.jpg` and
//! `strip-1.jpg` … `strip-5.jpg`. A folder is made whole in a temporary folder beside it and
//! renamed into place, so a crash or two makers racing never leave half of one under the real
//! name; a missing or cut-short file makes the folder count as absent (and be made again).

use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::{PreviewError, STRIP};

pub const POSTER: &str = "poster.jpg";
/// ffmpeg's numbered output name (image2 pattern) for the strip.
pub const STRIP_PATTERN: &str = "strip-%d.jpg";
/// Temporary folders start with this; older ones than `STALE` are left-overs of a crash.
const TEMP_PREFIX: &str = ".tmp-";
/// Well past ffmpeg's time limit: no maker can still be writing there.
const STALE: Duration = Duration::from_secs(600);

/// The files of one video's stills.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct StillPaths {
    pub poster: PathBuf,
    pub strip: Vec<PathBuf>,
}

impl StillPaths {
    pub fn of(folder: &Path) -> StillPaths {
        StillPaths { poster: folder.join(POSTER), strip: (1..=STRIP).map(|i| strip_path(folder, i)).collect() }
    }

    pub fn all(&self) -> impl Iterator<Item = &PathBuf> {
        std::iter::once(&self.poster).chain(&self.strip)
    }
}

/// `strip-1.jpg` is the first.
pub fn strip_path(folder: &Path, number: usize) -> PathBuf {
    folder.join(format!("strip-{number}.jpg"))
}

/// The lower-case hash, or `BadHash`: it names folders, so nothing else may pass.
pub fn checked_hash(sha256: &str) -> Result<String, PreviewError> {
    if sha256.len() == 64 && sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(sha256.to_ascii_lowercase())
    } else {
        Err(PreviewError::BadHash(sha256.to_string()))
    }
}

/// `<cache dir>/<sha[0..2]>/<sha>` (the two-letter level keeps folders small).
pub fn folder(cache_dir: &Path, sha256: &str) -> Result<PathBuf, PreviewError> {
    let sha = checked_hash(sha256)?;
    Ok(cache_dir.join(&sha[..2]).join(&sha))
}

/// Every file is there and looks like a whole JPEG (starts with SOI, ends with EOI): reading
/// four bytes per file, no decoding.
pub fn complete(folder: &Path) -> bool {
    StillPaths::of(folder).all().all(|p| whole_jpeg(p))
}

fn whole_jpeg(path: &Path) -> bool {
    let check = || -> std::io::Result<bool> {
        let mut f = fs::File::open(path)?;
        if f.metadata()?.len() < 4 {
            return Ok(false);
        }
        let (mut head, mut tail) = ([0u8; 2], [0u8; 2]);
        f.read_exact(&mut head)?;
        f.seek(SeekFrom::End(-2))?;
        f.read_exact(&mut tail)?;
        Ok(head == [0xFF, 0xD8] && tail == [0xFF, 0xD9])
    };
    check().unwrap_or(false)
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> PreviewError + '_ {
    move |source| PreviewError::Io { path: path.to_path_buf(), source }
}

/// A new empty folder beside `folder`, unique to this maker.
pub fn temp_folder(folder: &Path) -> Result<PathBuf, PreviewError> {
    let parent = folder.parent().unwrap_or(folder);
    fs::create_dir_all(parent).map_err(io(parent))?;
    sweep_stale(parent);
    let name = folder.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut rng = fastrand::Rng::new();
    loop {
        let temp = parent.join(format!("{TEMP_PREFIX}{name}-{}-{:08x}", std::process::id(), rng.u32(..)));
        match fs::create_dir(&temp) {
            Ok(()) => return Ok(temp),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io(&temp)(e)),
        }
    }
}

/// Removes temporary folders a crash left behind.
fn sweep_stale(parent: &Path) {
    let Ok(entries) = fs::read_dir(parent) else { return };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let stale = entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX)
            && entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|at| now.duration_since(at).is_ok_and(|age| age > STALE));
        if stale {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// A short video can give fewer strip frames than `STRIP` (one frame serves two moments): the
/// last one made stands in for the missing ones, so a whole folder always has every file.
/// Returns how many ffmpeg made.
pub fn fill_strip(temp: &Path) -> Result<usize, PreviewError> {
    let made = (1..=STRIP).take_while(|&i| whole_jpeg(&strip_path(temp, i))).count();
    if made == 0 {
        return Ok(0);
    }
    let last = strip_path(temp, made);
    for i in made + 1..=STRIP {
        let to = strip_path(temp, i);
        fs::copy(&last, &to).map_err(io(&to))?;
    }
    Ok(made)
}

/// Puts the whole `temp` folder in place of `folder`. A damaged folder there is replaced; a
/// whole one (another maker was quicker) is kept and ours thrown away.
pub fn commit(temp: &Path, folder: &Path) -> Result<(), PreviewError> {
    match fs::rename(temp, folder) {
        Ok(()) => return Ok(()),
        Err(_) if complete(folder) => {
            discard(temp);
            return Ok(());
        }
        Err(_) => {}
    }
    // Something damaged holds the name: move it aside (a rename, so readers never see a mix),
    // then take its place.
    let aside = temp.with_extension("old");
    let _ = fs::rename(folder, &aside);
    let _ = fs::remove_dir_all(&aside);
    let _ = fs::remove_file(folder);
    match fs::rename(temp, folder) {
        Ok(()) => Ok(()),
        Err(_) if complete(folder) => {
            discard(temp);
            Ok(())
        }
        Err(e) => {
            discard(temp);
            Err(io(folder)(e))
        }
    }
}

/// Takes a damaged folder away (renamed aside first, so no reader sees it half deleted).
pub fn remove(folder: &Path) {
    let Ok(temp) = temp_folder(folder) else { return };
    let _ = fs::remove_dir(&temp);
    if fs::rename(folder, &temp).is_ok() {
        discard(&temp);
    }
}

pub fn discard(temp: &Path) {
    let _ = fs::remove_dir_all(temp);
}

#[cfg(test)]
mod tests {
    use super::*;

    const JPEG: &[u8] = &[0xFF, 0xD8, 0x00, 0x01, 0xFF, 0xD9];
    const SHA: &str = "ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789";

    fn whole(folder: &Path) {
        fs::create_dir_all(folder).expect("folder");
        for p in StillPaths::of(folder).all() {
            fs::write(p, JPEG).expect("write");
        }
    }

    #[test]
    fn folders_are_named_by_the_lower_case_hash() {
        let f = folder(Path::new("/c"), SHA).expect("a hash");
        assert_eq!(f, Path::new("/c/ab").join(SHA.to_ascii_lowercase()));
        for bad in ["", "abc", "../../../../etc/passwd", &"g".repeat(64), &"a".repeat(65), &format!("{}/", &SHA[..63])]
        {
            assert!(matches!(folder(Path::new("/c"), bad), Err(PreviewError::BadHash(_))), "{bad}");
        }
    }

    #[test]
    fn a_missing_or_cut_file_makes_a_folder_incomplete() {
        let dir = tempfile::tempdir().expect("tempdir");
        let f = dir.path().join("x");
        assert!(!complete(&f));
        whole(&f);
        assert!(complete(&f));
        fs::write(f.join("strip-3.jpg"), &JPEG[..4]).expect("cut");
        assert!(!complete(&f), "cut short");
        fs::write(f.join("strip-3.jpg"), JPEG).expect("mend");
        fs::remove_file(f.join(POSTER)).expect("rm");
        assert!(!complete(&f), "missing");
        fs::write(f.join(POSTER), []).expect("empty");
        assert!(!complete(&f), "empty");
    }

    #[test]
    fn fill_strip_repeats_the_last_frame() {
        let dir = tempfile::tempdir().expect("tempdir");
        let t = dir.path();
        assert_eq!(fill_strip(t).expect("fill"), 0);
        fs::write(strip_path(t, 1), JPEG).expect("1");
        fs::write(strip_path(t, 2), [0xFF, 0xD8, 7, 0xFF, 0xD9]).expect("2");
        assert_eq!(fill_strip(t).expect("fill"), 2);
        for i in 3..=STRIP {
            assert_eq!(fs::read(strip_path(t, i)).expect("read"), [0xFF, 0xD8, 7, 0xFF, 0xD9]);
        }
    }

    #[test]
    fn commit_places_replaces_damage_and_yields_to_a_whole_folder() {
        let dir = tempfile::tempdir().expect("tempdir");
        let f = folder(dir.path(), SHA).expect("hash");
        // Into an empty place.
        let t = temp_folder(&f).expect("temp");
        whole(&t);
        commit(&t, &f).expect("commit");
        assert!(complete(&f) && !t.exists());
        // Over a damaged one.
        fs::remove_file(f.join("strip-5.jpg")).expect("damage");
        let t = temp_folder(&f).expect("temp");
        whole(&t);
        commit(&t, &f).expect("commit");
        assert!(complete(&f) && !t.exists());
        // Beside a whole one made meanwhile: ours is dropped.
        let t = temp_folder(&f).expect("temp");
        whole(&t);
        fs::write(t.join(POSTER), [0xFF, 0xD8, 9, 9, 0xFF, 0xD9]).expect("ours");
        commit(&t, &f).expect("commit");
        assert_eq!(fs::read(f.join(POSTER)).expect("read"), JPEG, "the first whole folder stays");
        assert!(!t.exists());
        let left: Vec<_> = fs::read_dir(f.parent().expect("parent")).expect("list").collect();
        assert_eq!(left.len(), 1, "no temporary folders left: {left:?}");
    }
}
