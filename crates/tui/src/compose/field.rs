//! The form's fields, in Tab order, and the scope of keys each one takes.

use crate::keymap::Scope;
use reel_rules as rules;

/// The form's fields, in Tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    Prompt,
    Negative,
    Model,
    Seconds,
    Resolution,
    Ratio,
    Watermark,
    Media,
    Copies,
    Grid,
}

impl Field {
    pub const ALL: [Field; 10] = [
        Field::Prompt,
        Field::Negative,
        Field::Model,
        Field::Seconds,
        Field::Resolution,
        Field::Ratio,
        Field::Watermark,
        Field::Media,
        Field::Copies,
        Field::Grid,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Field::Prompt => "Prompt",
            Field::Negative => "Negative",
            Field::Model => "Model",
            Field::Seconds => "Seconds",
            Field::Resolution => "Resolution",
            Field::Ratio => "Ratio",
            Field::Watermark => "Watermark",
            Field::Media => "Media",
            Field::Copies => "Copies",
            Field::Grid => "Grid",
        }
    }

    pub fn scope(self) -> Scope {
        match self {
            Field::Prompt | Field::Negative => Scope::Text,
            Field::Seconds | Field::Copies | Field::Grid => Scope::Line,
            _ => Scope::Form,
        }
    }

    pub fn next(self) -> Option<Field> {
        let i = Field::ALL.iter().position(|f| *f == self)?;
        Field::ALL.get(i + 1).copied()
    }

    pub fn prev(self) -> Option<Field> {
        let i = Field::ALL.iter().position(|f| *f == self)?;
        i.checked_sub(1).map(|j| Field::ALL[j])
    }

    pub(super) fn of(field: rules::Field) -> Field {
        match field {
            rules::Field::Body | rules::Field::Prompt => Field::Prompt,
            rules::Field::NegativePrompt => Field::Negative,
            rules::Field::Model => Field::Model,
            rules::Field::Seconds => Field::Seconds,
            rules::Field::Resolution => Field::Resolution,
            rules::Field::Ratio => Field::Ratio,
            rules::Field::Watermark => Field::Watermark,
            rules::Field::Media(_) => Field::Media,
        }
    }
}
