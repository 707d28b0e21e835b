//! Which columns of the task table fit a width: the most useful first, the state always, the
//! prompt taking what is left. Pure, so the narrow cases are tested as a table.

/// A column of the task table, in the order they are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Col {
    /// Group line, mark and spinner.
    Marks,
    State,
    /// The rating and the pick (`★4✓`); only when a task on the list has either, and then
    /// before the seconds and the ratio, so that it shows at 80 columns.
    Review,
    Prompt,
    Model,
    Seconds,
    Ratio,
    Resolution,
    Elapsed,
    /// The service's progress and the time left.
    Progress,
    /// Saved, missing, a download bar or how long the URL still works.
    File,
}

/// Columns are taken in this order while they fit; `PromptMore` widens the prompt.
#[derive(Clone, Copy)]
enum Pick {
    Col(Col),
    PromptMore,
}

const PRIORITY: [Pick; 12] = [
    Pick::Col(Col::Marks),
    Pick::Col(Col::State),
    Pick::Col(Col::Prompt),
    Pick::Col(Col::Review),
    Pick::Col(Col::Seconds),
    Pick::Col(Col::Ratio),
    Pick::Col(Col::File),
    Pick::PromptMore,
    Pick::Col(Col::Model),
    Pick::Col(Col::Elapsed),
    Pick::Col(Col::Resolution),
    Pick::Col(Col::Progress),
];

/// Space between columns.
pub const SPACING: u16 = 1;
/// The prompt's width at least, and what `PromptMore` adds.
const PROMPT_MIN: u16 = 12;
const PROMPT_MORE: u16 = 12;

impl Col {
    pub fn width(self) -> u16 {
        match self {
            Col::Marks => 3,
            Col::State => 15,
            Col::Review => 3,
            Col::Prompt => PROMPT_MIN,
            Col::Model => 16,
            Col::Seconds => 4,
            Col::Ratio => 5,
            Col::Resolution => 5,
            Col::Elapsed => 7,
            Col::Progress => 9,
            Col::File => 8,
        }
    }

    pub fn header(self) -> &'static str {
        match self {
            Col::Marks => "",
            Col::State => "state",
            Col::Review => "★",
            Col::Prompt => "prompt",
            Col::Model => "model",
            Col::Seconds => "sec",
            Col::Ratio => "ratio",
            Col::Resolution => "res",
            Col::Elapsed => "elapsed",
            Col::Progress => "progress",
            Col::File => "file",
        }
    }
}

/// The columns that fit `width` cells, in drawing order, and the prompt's width; the review
/// column only when `reviews` (some task on the list is rated or picked).
pub fn fit(width: u16, reviews: bool) -> (Vec<Col>, u16) {
    let mut cols: Vec<Col> = Vec::new();
    let mut used = 0u16;
    let mut prompt = 0u16;
    for pick in PRIORITY {
        let need = match pick {
            Pick::Col(Col::Review) if !reviews => continue,
            Pick::Col(c) => c.width() + if cols.is_empty() { 0 } else { SPACING },
            Pick::PromptMore if cols.contains(&Col::Prompt) => PROMPT_MORE,
            Pick::PromptMore => continue,
        };
        if used + need > width {
            continue;
        }
        used += need;
        match pick {
            Pick::Col(c) => {
                cols.push(c);
                if c == Col::Prompt {
                    prompt = PROMPT_MIN;
                }
            }
            Pick::PromptMore => prompt += PROMPT_MORE,
        }
    }
    cols.sort();
    if cols.contains(&Col::Prompt) {
        prompt += width - used;
    }
    (cols, prompt)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Col::*;

    #[test]
    fn columns_by_width() {
        // Inner widths of the table at 80x24, 120x32 and 160x48, and a very narrow one; with a
        // rated or picked task on the list, and without.
        let cases: [(u16, bool, &[Col], u16); 9] = [
            (20, false, &[Marks, State], 0),
            (44, false, &[Marks, State, Prompt, Seconds, Ratio], 13),
            (70, false, &[Marks, State, Prompt, Seconds, Ratio, Resolution, File], 24),
            (102, false, &[Marks, State, Prompt, Model, Seconds, Ratio, Resolution, Elapsed, File], 31),
            (140, false, &[Marks, State, Prompt, Model, Seconds, Ratio, Resolution, Elapsed, Progress, File], 59),
            (44, true, &[Marks, State, Review, Prompt, Seconds], 15),
            (70, true, &[Marks, State, Review, Prompt, Seconds, Ratio, File], 26),
            (78, true, &[Marks, State, Review, Prompt, Seconds, Ratio, Elapsed, File], 26),
            (102, true, &[Marks, State, Review, Prompt, Model, Seconds, Ratio, Resolution, Elapsed, File], 27),
        ];
        for (width, reviews, want, prompt) in cases {
            let (cols, p) = fit(width, reviews);
            assert_eq!((cols.as_slice(), p), (want, prompt), "{width} {reviews}");
            let total: u16 = cols.iter().map(|c| if *c == Prompt { p } else { c.width() }).sum::<u16>()
                + SPACING * (cols.len() as u16).saturating_sub(1);
            assert!(total <= width, "{width}: {total}");
            assert!(cols.contains(&State), "never the state");
        }
    }
}
