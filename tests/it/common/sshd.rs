//! A real OpenSSH server on 127.0.0.1 for the tests of an engine reached over SSH: its own
//! host key, client key, config and log in a folder of the test's own, on a free port, logging
//! in the user running the tests. Dropping it stops the server.

use std::ffi::OsString;
use std::io::Read as _;
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use super::folder::PATIENCE;

/// Where Debian, Fedora, Arch and Alpine put the server (it must be run by its absolute path).
const SSHD: [&str; 3] = ["/usr/sbin/sshd", "/usr/local/sbin/sshd", "/sbin/sshd"];

pub struct Sshd {
    dir: tempfile::TempDir,
    child: Child,
    port: u16,
    user: String,
    key: PathBuf,
}

impl Sshd {
    /// A server on a free port, ready to accept connections; `None` (the test says so and is
    /// skipped) when OpenSSH is not installed, except in CI, which must install it.
    pub fn start() -> Option<Sshd> {
        let Some(sshd) = SSHD.iter().map(Path::new).find(|p| p.is_file()) else {
            return skip("sshd (openssh-server) not installed");
        };
        let runs = |program: &str, arg: &str| Command::new(program).arg(arg).output().is_ok();
        if !runs("ssh", "-V") || !runs("ssh-keygen", "-?") {
            return skip("ssh or ssh-keygen (openssh-client) not installed");
        }
        let dir = tempfile::Builder::new().prefix("reel-sshd").tempdir().expect("a folder for sshd");
        let user = stdout(Command::new("id").arg("-un"));
        let root = stdout(Command::new("id").arg("-u")) == "0";
        let (host_key, key) = (dir.path().join("host_ed25519"), dir.path().join("client_ed25519"));
        for k in [&host_key, &key] {
            let made = Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-C", "reel-test", "-f"])
                .arg(k)
                .stdin(Stdio::null())
                .output()
                .expect("ssh-keygen runs");
            assert!(made.status.success(), "ssh-keygen: {}", String::from_utf8_lossy(&made.stderr));
        }
        let public = std::fs::read_to_string(key.with_extension("pub")).expect("the client's public key");
        std::fs::write(dir.path().join("authorized_keys"), public).expect("authorized_keys");
        if root {
            // sshd refuses to start without its privilege separation folder.
            std::fs::create_dir_all("/run/sshd").expect("/run/sshd");
        }
        // A port picked free can be taken before sshd binds it: a few tries.
        let log = dir.path().join("sshd.log");
        for _ in 0..5 {
            let port = free_port();
            let config = dir.path().join("sshd_config");
            std::fs::write(&config, sshd_config(dir.path(), port, &user, root)).expect("sshd_config");
            let file = std::fs::File::create(&log).expect("sshd.log");
            let mut child = Command::new(sshd)
                .args(["-D", "-e", "-f"])
                .arg(&config)
                .stdin(Stdio::null())
                .stdout(file.try_clone().expect("the log twice"))
                .stderr(file)
                .spawn()
                .expect("sshd starts");
            if until_ready(&mut child, port, &log) {
                return Some(Sshd { dir, child, port, user, key });
            }
            let said = std::fs::read_to_string(&log).unwrap_or_default();
            assert!(said.contains("Address already in use"), "sshd did not start:\n{said}");
        }
        panic!("sshd found no free port in five tries");
    }

    /// Stops the listening server, as a host that went away: sessions under way go on until
    /// they are cut, new logins are refused.
    pub fn stop_listening(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The login name: the user running the tests.
    pub fn user(&self) -> &str {
        &self.user
    }

    /// The ssh command for REEL_SSH, with this server's client key and a known-hosts file of
    /// its own (never the user's ~/.ssh).
    pub fn ssh(&self) -> Vec<String> {
        let known = self.dir.path().join("known_hosts");
        let mut argv = vec!["ssh".to_string(), "-F".into(), "/dev/null".into(), "-i".into()];
        argv.push(self.key.display().to_string());
        for option in [
            "IdentitiesOnly=yes".to_string(),
            format!("UserKnownHostsFile={}", known.display()),
            "StrictHostKeyChecking=no".into(),
            "LogLevel=ERROR".into(),
        ] {
            argv.extend(["-o".into(), option]);
        }
        argv
    }

    /// [`Sshd::ssh`] as one line, as REEL_SSH takes it.
    pub fn ssh_line(&self) -> String {
        shell_words::join(self.ssh())
    }

    /// `ssh://USER@127.0.0.1:PORT/DATA`: the engine of the data folder `data` on this "host".
    pub fn url(&self, data: &Path) -> String {
        let data = std::path::absolute(data).expect("an absolute data folder");
        format!("ssh://{}@127.0.0.1:{}{}", self.user, self.port, data.display())
    }

    /// What the server logged so far (for failure messages).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("sshd.log")).unwrap_or_default()
    }

    /// A client on this machine that uses the engine of `host_data` through this server, with a
    /// data folder and config of its own; `remote_reel` is REEL_REMOTE_REEL (see [`remote_reel`]).
    pub fn client(&self, host_data: &Path, remote_reel: &str) -> Client {
        let dir = tempfile::Builder::new().prefix("reel-client").tempdir().expect("a folder for the client");
        let (data, config) = (dir.path().join("data"), dir.path().join("config.toml"));
        std::fs::write(&config, "").expect("the client's config");
        Client {
            _dir: dir,
            data,
            config,
            url: self.url(host_data),
            ssh: self.ssh_line(),
            remote_reel: remote_reel.to_string(),
        }
    }
}

impl Drop for Sshd {
    /// Stops the server and the sessions it started (they outlive it otherwise), so that a
    /// failed test leaves no ssh or host command behind.
    fn drop(&mut self) {
        let sessions = descendants(self.child.id());
        let _ = self.child.kill();
        let _ = self.child.wait();
        for pid in sessions {
            let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).stderr(Stdio::null()).status();
        }
    }
}

/// A reel on this machine whose engine is on the "host" (`--engine ssh://…`), with a data
/// folder of its own that holds none of the host's tasks.
pub struct Client {
    _dir: tempfile::TempDir,
    pub data: PathBuf,
    pub config: PathBuf,
    pub url: String,
    ssh: String,
    remote_reel: String,
}

impl Client {
    /// `reel --engine URL ARGS` with REEL_SSH and REEL_REMOTE_REEL set and nothing of the
    /// service's (the host's reel has its own).
    pub fn command(&self, args: &[&str]) -> tokio::process::Command {
        let mut c = tokio::process::Command::new(env!("CARGO_BIN_EXE_reel"));
        c.arg("--engine")
            .arg(&self.url)
            .args(args)
            .env_remove("REEL_BASE_URL")
            .env_remove("REEL_API_KEY")
            .env_remove("REEL_ENGINE")
            .env_remove("REEL_PROFILE")
            .env("REEL_DATA_DIR", &self.data)
            .env("REEL_CONFIG", &self.config)
            .env("REEL_SSH", &self.ssh)
            .env("REEL_REMOTE_REEL", &self.remote_reel)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        c
    }

    /// Runs [`Client::command`] to its end (within [`PATIENCE`]).
    pub async fn run(&self, args: &[&str]) -> Output {
        let mut command = self.command(args);
        tokio::time::timeout(PATIENCE, command.output())
            .await
            .unwrap_or_else(|_| panic!("reel {args:?} over ssh did not finish in {PATIENCE:?}"))
            .expect("reel runs")
    }
}

/// REEL_REMOTE_REEL for this very reel with `env` set on the host (sshd passes none of the
/// client's environment through): the test's PATH and, e.g., REEL_BASE_URL and REEL_API_KEY of
/// a simulator.
pub fn remote_reel(env: &[(OsString, OsString)]) -> String {
    let program = ["/usr/bin/env", "/bin/env"].into_iter().find(|p| Path::new(p).is_file()).expect("env(1)");
    let mut words = vec![program.to_string()];
    if let Some(path) = std::env::var_os("PATH") {
        words.push(format!("PATH={}", path.to_string_lossy()));
    }
    words.extend(env.iter().map(|(k, v)| format!("{}={}", k.to_string_lossy(), v.to_string_lossy())));
    words.push(env!("CARGO_BIN_EXE_reel").to_string());
    shell_words::join(words)
}

/// The processes whose parent is `pid`, with their names (from /proc; none without it).
pub fn children(pid: u32) -> Vec<(u32, String)> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let Some(child) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        // A process may end while it is read: skip it.
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // `pid (name) state ppid …`; the name may hold spaces and parentheses.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else { continue };
        let parent = stat[close + 1..].split_whitespace().nth(1).and_then(|p| p.parse::<u32>().ok());
        if parent == Some(pid) {
            found.push((child, stat[open + 1..close].to_string()));
        }
    }
    found
}

/// The children of `pid`, their children, and so on.
fn descendants(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    let mut next = vec![pid];
    while let Some(p) = next.pop() {
        for (child, _) in children(p) {
            found.push(child);
            next.push(child);
        }
    }
    found
}

fn sshd_config(dir: &Path, port: u16, user: &str, root: bool) -> String {
    let d = dir.display();
    let root_login = if root { "prohibit-password" } else { "no" };
    format!(
        "ListenAddress 127.0.0.1\n\
         Port {port}\n\
         HostKey {d}/host_ed25519\n\
         AuthorizedKeysFile {d}/authorized_keys\n\
         PidFile {d}/sshd.pid\n\
         AllowUsers {user}\n\
         PermitRootLogin {root_login}\n\
         PubkeyAuthentication yes\n\
         PasswordAuthentication no\n\
         KbdInteractiveAuthentication no\n\
         UsePAM no\n\
         StrictModes no\n\
         X11Forwarding no\n\
         AllowAgentForwarding no\n\
         AllowTcpForwarding no\n\
         PermitTTY no\n\
         PrintMotd no\n\
         PrintLastLog no\n\
         LogLevel VERBOSE\n"
    )
}

/// Waits until the server at `port` says hello; false if it exited first.
fn until_ready(child: &mut Child, port: u16, log: &Path) -> bool {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if child.try_wait().expect("sshd's status").is_some() {
            return false;
        }
        if says_hello(port) {
            return true;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let said = std::fs::read_to_string(log).unwrap_or_default();
            panic!("sshd did not accept connections in 20 s:\n{said}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Whether an SSH server answers on `port` (its banner, not just any listener).
fn says_hello(port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect((Ipv4Addr::LOCALHOST, port)) else { return false };
    stream.set_read_timeout(Some(Duration::from_secs(5))).expect("a read timeout");
    let mut banner = [0u8; 4];
    stream.read_exact(&mut banner).is_ok() && &banner == b"SSH-"
}

fn free_port() -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("a free port");
    listener.local_addr().expect("its address").port()
}

fn stdout(command: &mut Command) -> String {
    let out = command.output().expect("runs");
    assert!(out.status.success(), "{command:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn skip(why: &str) -> Option<Sshd> {
    assert!(std::env::var_os("CI").is_none(), "CI must install OpenSSH (see .ci/run): {why}");
    eprintln!("skipped: {why}");
    None
}
