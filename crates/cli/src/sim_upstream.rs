//! `reel sim`'s flags for what a gateway's upstream does (see `sim::upstream`): another size and
//! length than asked, one model's key refused, a wrapped upstream error.

use clap::Args;

use reel_sim::Upstream;

const UPSTREAM: &str = "What a gateway's upstream does";

#[derive(Debug, Args)]
pub struct UpstreamArgs {
    /// Say completed tasks were rendered at this size (as a gateway that dropped what was asked).
    #[arg(long, value_name = "WIDTHxHEIGHT", help_heading = UPSTREAM)]
    pub render_size: Option<String>,
    /// Say completed tasks were rendered this long (sent as a string, such as "8.0").
    #[arg(long, value_name = "SECONDS", help_heading = UPSTREAM)]
    pub render_seconds: Option<String>,
    /// Send a `usage` object with completed tasks.
    #[arg(long, help_heading = UPSTREAM)]
    pub usage: bool,
    /// Answer 401 to every request about this model, as a gateway whose vendor key for it is wrong.
    #[arg(long, value_name = "MODEL", help_heading = UPSTREAM)]
    pub refuse_model_key: Option<String>,
    /// Refuse this model's submissions of other than 4, 8 or 12 seconds with a wrapped upstream 400.
    #[arg(long, value_name = "MODEL", help_heading = UPSTREAM)]
    pub wrap_errors_for: Option<String>,
}

impl UpstreamArgs {
    pub fn upstream(&self) -> Upstream {
        Upstream {
            render_size: self.render_size.clone(),
            render_seconds: self.render_seconds.clone(),
            usage: self.usage,
            refuse_model_key: self.refuse_model_key.clone(),
            wrap_errors_for: self.wrap_errors_for.clone(),
        }
    }
}
