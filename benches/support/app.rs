//! A dashboard as the benches measure it: a paid profile on a loopback address, the built-in
//! catalog, no tasks yet, at 160x48.

use reel_engine::ServiceState;
use reel_engine::config::Pricing;
use reel_rules::Catalog;
use reel_tui::app::{App, Header};
use reel_tui::prefs::Prefs;

pub fn empty(now_ms: i64) -> App {
    let header = Header {
        profile: None,
        base_url: "http://127.0.0.1:8787/".into(),
        demo: false,
        far: None,
        service: ServiceState::default(),
    };
    App::new(
        Catalog::builtin(),
        Pricing::default(),
        vec![],
        Default::default(),
        header,
        Prefs::default(),
        now_ms,
        (160, 48),
    )
}
