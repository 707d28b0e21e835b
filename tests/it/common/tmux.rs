//! A tmux server of a test's own (its own socket), for driving the real binary as a user
//! does: send-keys in, capture-pane out. Killed on drop.
#![allow(dead_code)]

use std::process::Command;
use std::time::{Duration, Instant};

/// How long to wait for a screen before calling a test failed. It only bounds a failure:
/// nothing is asserted about how fast the screen comes, so a loaded machine cannot fail it.
pub const PATIENCE: Duration = Duration::from_secs(120);

/// One tmux server per test (its own socket), killed on drop.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// A server on the socket `name` (unique per test), not yet running anything.
    pub fn named(name: String) -> Tmux {
        Tmux { socket: name }
    }

    /// A new server on the socket `name` running `command` in a `width`x`height` pane.
    pub fn start(name: String, width: u16, height: u16, command: &str) -> Tmux {
        let tmux = Tmux::named(name);
        let (w, h) = (width.to_string(), height.to_string());
        tmux.run(&["new-session", "-d", "-s", "reel", "-x", &w, "-y", &h, command]);
        tmux
    }

    /// The process running in the pane (the shell that runs reel, then echoes its exit).
    pub fn pane_pid(&self) -> u32 {
        let out = self.run(&["list-panes", "-t", "reel", "-F", "#{pane_pid}"]);
        out.trim().parse().unwrap_or_else(|_| panic!("a pane pid: {out:?}"))
    }

    pub fn run(&self, args: &[&str]) -> String {
        let out =
            Command::new("tmux").args(["-L", &self.socket]).args(args).output().expect("tmux runs (install tmux)");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "reel"];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    pub fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "reel"])
    }

    /// Waits until the screen shows `text`.
    pub fn wait_for(&self, text: &str) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let s = self.screen();
            if s.contains(text) {
                return s;
            }
            assert!(Instant::now() < deadline, "\"{text}\" never appeared; the screen:\n{s}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits until one screen shows every one of `texts` (a capture can catch a frame half
    /// drawn: the words of one view and the rest of the one before).
    pub fn wait_for_all(&self, texts: &[&str]) -> String {
        self.wait_until(&format!("{texts:?} together"), |s| texts.iter().all(|t| s.contains(t)))
    }

    /// Waits until a screen is `ok`; `what` names it in the failure.
    pub fn wait_until(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let s = self.screen();
            if ok(&s) {
                return s;
            }
            assert!(Instant::now() < deadline, "never {what}; the screen:\n{s}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits until the screen no longer shows `text`.
    pub fn wait_gone(&self, text: &str) {
        let deadline = Instant::now() + PATIENCE;
        while self.screen().contains(text) {
            assert!(Instant::now() < deadline, "\"{text}\" stayed; the screen:\n{}", self.screen());
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits until pictures are drawn: no stand-in saying "preview…" and at least `cells`
    /// cells in 24-bit colour (half blocks; tmux has no image protocol). The screen with its
    /// escapes.
    pub fn wait_for_pictures(&self, cells: usize) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let s = self.screen();
            let with_escapes = self.run(&["capture-pane", "-p", "-e", "-t", "reel"]);
            let coloured = with_escapes.matches("48;2;").count();
            if !s.contains("preview…") && coloured >= cells {
                return with_escapes;
            }
            assert!(Instant::now() < deadline, "no pictures ({coloured} coloured cells):\n{s}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux").args(["-L", &self.socket, "kill-server"]).output();
    }
}
