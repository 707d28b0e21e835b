//! An engine on another machine, reached over SSH as `docker -H ssh://` and git do: the local
//! reel runs `ssh [user@]host <reel> engine attach --stdio`, and that reel bridges the host's
//! engine socket to the SSH channel. SSH does the authentication with the user's own keys,
//! config and agent; nothing listens on a network port.

use std::process::Stdio;
use std::sync::{Arc, Mutex};

use tokio::io::AsyncReadExt as _;
use tokio::sync::mpsc;

use super::ServiceError;
use super::client::{Far, HandshakeError, Hello, RemoteEngine, Way};
use crate::Event;

/// Where the engine runs: `ssh://[user@]host[:port][/data/dir]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SshTarget {
    pub user: Option<String>,
    pub host: String,
    pub port: Option<u16>,
    /// The data folder on the host (its default when `None`); `~/` is the host's home.
    pub data_dir: Option<String>,
}

/// How to reach an engine over SSH: where, the ssh command, and the reel on the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SshReach {
    pub target: SshTarget,
    pub ssh: Vec<String>,
    pub reel: Vec<String>,
}

const FORM: &str = "write it as ssh://[user@]host[:port][/data/dir]";

impl SshTarget {
    pub fn parse(text: &str) -> Result<SshTarget, ServiceError> {
        let bad = |why: &str| ServiceError::BadEngine(format!("{text:?} {why}; {FORM}"));
        let url = url::Url::parse(text).map_err(|e| bad(&format!("is not a URL ({e})")))?;
        if url.scheme() != "ssh" {
            return Err(bad("is not an ssh:// address (engines on other machines are reached over SSH)"));
        }
        let host = url.host_str().filter(|h| !h.is_empty()).ok_or_else(|| bad("names no host"))?;
        if url.password().is_some() || url.query().is_some() || url.fragment().is_some() {
            return Err(bad("has a password, query or fragment, which reel does not use"));
        }
        let user = Some(url.username()).filter(|u| !u.is_empty()).map(decode).transpose().map_err(|e| bad(&e))?;
        let path = decode(url.path()).map_err(|e| bad(&e))?;
        let data_dir = match path.as_str() {
            "" | "/" => None,
            p if p.starts_with("/~/") || p == "/~" => Some(p[1..].to_string()),
            p => Some(p.to_string()),
        };
        if user.as_deref().is_some_and(|u| u.starts_with('-')) || host.starts_with('-') {
            return Err(bad("starts with '-'"));
        }
        Ok(SshTarget { user, host: host.trim_matches(['[', ']']).to_string(), port: url.port(), data_dir })
    }

    /// `user@host:port` as written, for messages and the dashboard's header.
    pub fn label(&self) -> String {
        let user = self.user.as_deref().map(|u| format!("{u}@")).unwrap_or_default();
        let port = self.port.map(|p| format!(":{p}")).unwrap_or_default();
        format!("{user}{}{port}", self.host)
    }
}

/// Percent-decoding of a URL part.
fn decode(text: &str) -> Result<String, String> {
    // The crate passes a bad escape through; a target with one is refused instead.
    for (i, _) in text.match_indices('%') {
        if !text.get(i + 1..i + 3).is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit())) {
            return Err(format!("has a bad escape at {:?}", &text[i..]));
        }
    }
    let decoded = percent_encoding::percent_decode_str(text).decode_utf8();
    decoded.map(|d| d.into_owned()).map_err(|_| "is not UTF-8 once decoded".to_string())
}

impl SshReach {
    /// The ssh program and its arguments: the user's ssh command, options that keep a dead
    /// link from hanging (and a password prompt from drawing over the dashboard), the
    /// destination, and the host's command as one shell-quoted line.
    pub fn command_line(&self) -> Vec<String> {
        let t = &self.target;
        let mut args = self.ssh.clone();
        args.extend(
            ["-T", "-o", "BatchMode=yes", "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3"]
                .map(String::from),
        );
        args.extend(["-o".into(), "ConnectTimeout=15".into()]);
        if let Some(port) = t.port {
            args.extend(["-p".into(), port.to_string()]);
        }
        // Nothing after this is an option of ssh's.
        args.push("--".into());
        args.push(match &t.user {
            Some(u) => format!("{u}@{}", t.host),
            None => t.host.clone(),
        });
        let mut remote = self.reel.clone();
        remote.extend(["engine", "attach", "--stdio"].map(String::from));
        if let Some(dir) = &t.data_dir {
            remote.extend(["--data-dir".into(), dir.clone()]);
        }
        args.push(shell_words::join(remote));
        args
    }

    /// Starts ssh and says hello to the engine at its end.
    pub async fn connect(&self) -> Result<(RemoteEngine, mpsc::UnboundedReceiver<Event>), ServiceError> {
        let line = self.command_line();
        let label = self.target.label();
        let mut child = tokio::process::Command::new(&line[0])
            .args(&line[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            // Its own process group: Ctrl-C is this reel's to handle (it says what goes on at
            // the host), not a signal that cuts the link under it.
            .process_group(0)
            .spawn()
            .map_err(|source| ServiceError::Spawn { exe: line[0].clone().into(), source })?;
        let said = Arc::new(Mutex::new(String::new()));
        if let Some(mut stderr) = child.stderr.take() {
            let said = said.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                while let Ok(n @ 1..) = stderr.read(&mut buf).await {
                    let text = String::from_utf8_lossy(&buf[..n]).into_owned();
                    tracing::info!(ssh = %text.trim_end(), "ssh said");
                    let mut kept = said.lock().unwrap_or_else(|e| e.into_inner());
                    kept.push_str(&text);
                    // The end says why it failed; the start of a long story does not.
                    if kept.len() > 8192 {
                        let cut = kept.len() - 4096;
                        let cut = (cut..kept.len()).find(|i| kept.is_char_boundary(*i)).unwrap_or(cut);
                        kept.replace_range(..cut, "");
                    }
                }
            });
        }
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(ServiceError::Ssh { label, said: "ssh started without its pipes".into() });
        };
        let far = Far { label: label.clone(), _ssh: child };
        match RemoteEngine::handshake(Box::new(stdout), Box::new(stdin), Way::Ssh(far)).await {
            Ok(Hello::Attached(engine, events)) => Ok((*engine, events)),
            Ok(Hello::Refused { reason, .. }) => {
                Err(ServiceError::Refused(format!("the engine at ssh://{label}: {reason}")))
            }
            Err(HandshakeError::Closed | HandshakeError::Io(_)) => {
                // ssh's last words come a moment after its output closes.
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                let said = said.lock().unwrap_or_else(|e| e.into_inner()).trim().to_string();
                Err(ServiceError::Ssh { label, said: explain(&said) })
            }
            Err(HandshakeError::Protocol(why)) => Err(ServiceError::Protocol(why)),
        }
    }
}

/// What ssh or the host said, with what to do when it is a common case.
fn explain(said: &str) -> String {
    // A program's own `error:` line says more than the usage that follows it.
    let last = said
        .lines()
        .find(|l| l.trim_start().starts_with("error:"))
        .or_else(|| said.lines().rev().find(|l| !l.trim().is_empty()))
        .unwrap_or("")
        .trim();
    if said.is_empty() {
        return "ssh closed the connection without a word".into();
    }
    if let Some(changed) = changed_host_key(said) {
        return changed;
    }
    let older = said.contains("unrecognized subcommand") || said.contains("unexpected argument");
    let hint = if older {
        " (the host's reel is another version, without `engine attach --stdio`): install the same version \
         of reel on both machines"
    } else if last.starts_with("reel: ") {
        // The host's reel ran and said what is wrong (its data folder, its config): as it said.
        " (said by reel on the host)"
    } else if said.contains("command not found") || said.contains("No such file") {
        "; is reel installed on the host? Set REEL_REMOTE_REEL (or [remote] reel) to its path there"
    } else if said.contains("Host key verification failed") {
        // Not known yet (a changed key is said above, never this).
        "; this machine does not know the host's key yet: compare its fingerprint with the one the host's \
         administrator gives (`ssh-keygen -lf` on the host's key), and only then add it to known_hosts"
    } else if said.contains("Permission denied") {
        "; reel logs in with your SSH keys or agent, never a password: check `ssh -o BatchMode=yes HOST true`"
    } else {
        ""
    };
    let ours = if older { format!("; this one is {}", env!("CARGO_PKG_VERSION")) } else { String::new() };
    format!("{last}{hint}{ours}")
}

/// ssh's own warning when the host's key is not the one known for it, passed through: it may be
/// a man-in-the-middle, so nothing here advises accepting the new key.
fn changed_host_key(said: &str) -> Option<String> {
    let changed = said.contains("REMOTE HOST IDENTIFICATION HAS CHANGED") || said.contains("has changed and you have");
    if !changed {
        return None;
    }
    let wanted = ["WARNING", "POSSIBLE", "eavesdropping", "fingerprint", "SHA256:", "Offending", "has changed"];
    let lines: Vec<&str> = said
        .lines()
        .map(|l| l.trim().trim_matches('@').trim())
        .filter(|l| !l.is_empty() && wanted.iter().any(|w| l.contains(w)))
        .collect();
    Some(format!(
        "ssh refused the host: its key is not the one this machine knows for it, which can mean someone is \
         in between (a man-in-the-middle attack) or that the host was reinstalled; reel did not connect. \
         Do not accept the new key until the host's administrator has confirmed its fingerprint. ssh said: {}",
        lines.join(" ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(user: Option<&str>, host: &str, port: Option<u16>, dir: Option<&str>) -> SshTarget {
        SshTarget { user: user.map(String::from), host: host.into(), port, data_dir: dir.map(String::from) }
    }

    #[test]
    fn addresses_are_read_or_refused_with_the_form() {
        let cases = [
            ("ssh://box", Some(target(None, "box", None, None))),
            ("ssh://me@box:2222/srv/reel", Some(target(Some("me"), "box", Some(2222), Some("/srv/reel")))),
            ("ssh://me@box/~/reel", Some(target(Some("me"), "box", None, Some("~/reel")))),
            ("ssh://box/my%20videos", Some(target(None, "box", None, Some("/my videos")))),
            ("ssh://[::1]:22/", Some(target(None, "::1", Some(22), None))),
            ("http://box", None),
            ("box", None),
            ("ssh://me:secret@box", None),
            ("ssh://-oProxyCommand=x/", None),
            ("ssh://box/a?b", None),
        ];
        for (text, want) in cases {
            let got = SshTarget::parse(text);
            match want {
                Some(t) => assert_eq!(got.ok(), Some(t), "{text}"),
                None => {
                    let e = got.err().map(|e| e.to_string()).unwrap_or_default();
                    assert!(e.contains("ssh://[user@]host[:port][/data/dir]"), "{text}: {e}");
                }
            }
        }
        assert_eq!(target(Some("me"), "box", Some(22), None).label(), "me@box:22");
    }

    #[test]
    fn the_command_line_quotes_the_hosts_command() {
        let reach = SshReach {
            target: target(Some("me"), "box", Some(2222), Some("/srv/my reel")),
            ssh: vec!["ssh".into(), "-F".into(), "/x/config".into()],
            reel: vec!["/opt/reel bin/reel".into()],
        };
        let line = reach.command_line();
        assert_eq!(&line[..3], ["ssh", "-F", "/x/config"], "the user's command first");
        assert!(line.windows(2).any(|w| w == ["-o", "BatchMode=yes"]), "never a password prompt: {line:?}");
        assert!(line.windows(2).any(|w| w == ["-p", "2222"]), "{line:?}");
        assert_eq!(line[line.len() - 2], "me@box");
        assert_eq!(line[line.len() - 3], "--", "the destination is never read as an option");
        let remote = shell_words::split(&line[line.len() - 1]).expect("one shell line");
        assert_eq!(remote, ["/opt/reel bin/reel", "engine", "attach", "--stdio", "--data-dir", "/srv/my reel"]);
    }

    #[test]
    fn ssh_failures_say_what_to_do() {
        let cases = [
            ("", "without a word"),
            ("bash: line 1: reel: command not found\n", "REEL_REMOTE_REEL"),
            ("bash: line 1: /opt/reel: No such file or directory\n", "REEL_REMOTE_REEL"),
            (
                "reel: the data folder /proc/nope cannot be used: its parent folder does not exist\n",
                "/proc/nope cannot be used: its parent folder does not exist (said by reel on the host)",
            ),
            (
                "No ED25519 host key is known for [box]:22 and you have requested strict checking.\nHost key verification failed.\n",
                "compare its fingerprint",
            ),
            ("me@box: Permission denied (publickey).\n", "never a password"),
            ("ssh: connect to host box port 22: Connection refused\n", "Connection refused"),
            (
                "error: unrecognized subcommand 'attach'\n\nUsage: reel engine <COMMAND>\n\nFor more information, try '--help'.\n",
                "same version of reel on both machines",
            ),
        ];
        for (said, want) in cases {
            assert!(explain(said).contains(want), "{said:?}: {}", explain(said));
        }
        let changed = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n\
            @    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n\
            @@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n\
            IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!\n\
            Someone could be eavesdropping on you right now (man-in-the-middle attack)!\n\
            The fingerprint for the ED25519 key sent by the remote host is\n\
            SHA256:abcdef.\n\
            Offending ED25519 key in /home/me/.ssh/known_hosts:3\n\
            Host key for [box]:22 has changed and you have requested strict checking.\n\
            Host key verification failed.\n";
        let said = explain(changed);
        for want in ["man-in-the-middle", "REMOTE HOST IDENTIFICATION HAS CHANGED", "SHA256:abcdef", "known_hosts:3"] {
            assert!(said.contains(want), "{want}: {said}");
        }
        assert!(!said.contains("and accept") && !said.contains("add it"), "never advice to accept: {said}");
    }
}
