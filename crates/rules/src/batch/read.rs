//! Rows of a batch file: JSON lines, CSV with a header row naming the fields, or plain text
//! with one prompt per line; chosen by the file's extension.

use std::collections::BTreeMap;

use serde_json::Value;

use super::RowError;

/// One row as written: each field as text (lists joined by commas), media items apart.
/// Fields that are not a submission's name template variables.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Row {
    /// Where the row is: `FILE:LINE`.
    pub at: String,
    pub fields: BTreeMap<String, String>,
    pub media: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    JsonLines,
    Csv,
    Text,
}

impl Format {
    pub fn of(name: &str) -> Format {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".jsonl") {
            Format::JsonLines
        } else if lower.ends_with(".csv") {
            Format::Csv
        } else {
            Format::Text
        }
    }
}

/// Every row of `text`, or every row that could not be read. `name` is the file as shown in
/// messages; blank lines (and, in text, lines starting with `#`) are not rows.
pub fn rows(name: &str, text: &str) -> Result<Vec<Row>, Vec<RowError>> {
    match Format::of(name) {
        Format::Text => Ok(text_rows(name, text)),
        Format::JsonLines => json_rows(name, text),
        Format::Csv => csv_rows(name, text),
    }
}

fn at(name: &str, line: usize) -> String {
    format!("{name}:{line}")
}

fn text_rows(name: &str, text: &str) -> Vec<Row> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|(i, l)| Row {
            at: at(name, i + 1),
            fields: [("prompt".to_string(), l.trim().to_string())].into(),
            media: Vec::new(),
        })
        .collect()
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn json_rows(name: &str, text: &str) -> Result<Vec<Row>, Vec<RowError>> {
    let mut rows = Vec::new();
    let mut errors = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let here = at(name, i + 1);
        let bad = |field: &str, message: String| RowError { at: here.clone(), field: field.into(), message };
        let object = match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(o)) => o,
            Ok(_) => {
                errors.push(bad("row", "is not a JSON object".into()));
                continue;
            }
            Err(e) => {
                errors.push(bad("row", format!("is not JSON: {e}")));
                continue;
            }
        };
        let mut row = Row { at: here.clone(), ..Row::default() };
        for (key, value) in &object {
            let text = match value {
                Value::Null => continue,
                Value::Array(items) => items.iter().map(scalar).collect::<Option<Vec<String>>>(),
                v => scalar(v).map(|s| vec![s]),
            };
            match text {
                Some(items) if key == "media" => row.media = items,
                Some(items) => {
                    row.fields.insert(key.clone(), items.join(","));
                }
                None => errors.push(bad(key, "must be text, a number, true/false or a list of them".into())),
            }
        }
        rows.push(row);
    }
    if errors.is_empty() { Ok(rows) } else { Err(errors) }
}

fn csv_rows(name: &str, text: &str) -> Result<Vec<Row>, Vec<RowError>> {
    let mut reader = csv::ReaderBuilder::new().has_headers(true).trim(csv::Trim::All).from_reader(text.as_bytes());
    let header = match reader.headers() {
        Ok(h) => h.iter().map(str::to_string).collect::<Vec<_>>(),
        Err(e) => return Err(vec![RowError { at: at(name, 1), field: "header".into(), message: e.to_string() }]),
    };
    let mut rows = Vec::new();
    let mut errors = Vec::new();
    for record in reader.records() {
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line() as usize);
                errors.push(RowError { at: at(name, line), field: "row".into(), message: e.to_string() });
                continue;
            }
        };
        let line = record.position().map_or(0, |p| p.line() as usize);
        if record.iter().all(str::is_empty) {
            continue;
        }
        let mut row = Row { at: at(name, line), ..Row::default() };
        for (key, value) in header.iter().zip(record.iter()).filter(|(_, v)| !v.is_empty()) {
            if key == "media" {
                // URLs hold no spaces: several items in one cell are separated by spaces.
                row.media.extend(value.split_whitespace().map(str::to_string));
            } else {
                row.fields.insert(key.clone(), value.to_string());
            }
        }
        rows.push(row);
    }
    if errors.is_empty() { Ok(rows) } else { Err(errors) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(row: &Row) -> Vec<(&str, &str)> {
        row.fields.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
    }

    #[test]
    fn formats_by_extension() {
        let cases = [
            ("a.jsonl", Format::JsonLines),
            ("A.CSV", Format::Csv),
            ("prompts.txt", Format::Text),
            ("prompts", Format::Text),
            ("x.json", Format::Text),
        ];
        for (name, want) in cases {
            assert_eq!(Format::of(name), want, "{name}");
        }
    }

    #[test]
    fn text_is_one_prompt_per_line() {
        let rows = rows("p.txt", "a red fox\n\n# a comment\n  a blue whale  \n").expect("rows");
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[0].at.as_str(), fields(&rows[0])), ("p.txt:1", vec![("prompt", "a red fox")]));
        assert_eq!((rows[1].at.as_str(), fields(&rows[1])), ("p.txt:4", vec![("prompt", "a blue whale")]));
    }

    #[test]
    fn json_lines_take_scalars_and_lists() {
        let text = "{\"prompt\":\"a {subject}\",\"seconds\":10,\"watermark\":true,\"subject\":\"fox\"}\n\n\
                    {\"prompt\":\"b\",\"ratio\":[\"16:9\",\"9:16\"],\"media\":[\"reference_image=https://x.org/a.png\"],\"negative\":null}\n";
        let rows = rows("b.jsonl", text).expect("rows");
        assert_eq!(
            fields(&rows[0]),
            vec![("prompt", "a {subject}"), ("seconds", "10"), ("subject", "fox"), ("watermark", "true")]
        );
        assert_eq!(rows[1].at, "b.jsonl:3");
        assert_eq!(fields(&rows[1]), vec![("prompt", "b"), ("ratio", "16:9,9:16")]);
        assert_eq!(rows[1].media, ["reference_image=https://x.org/a.png"]);
    }

    #[test]
    fn json_lines_errors_name_line_and_field() {
        let errors = rows("b.jsonl", "{\"prompt\":\"a\"}\n[1]\nnot json\n{\"seconds\":{\"x\":1}}\n").expect_err("bad");
        let shown: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(shown.len(), 3);
        assert_eq!(shown[0], "b.jsonl:2: row: is not a JSON object");
        assert!(shown[1].starts_with("b.jsonl:3: row: is not JSON"), "{}", shown[1]);
        assert_eq!(shown[2], "b.jsonl:4: seconds: must be text, a number, true/false or a list of them");
    }

    #[test]
    fn csv_header_names_the_fields() {
        let text = "prompt,seconds,ratio,subject,media\n\"a {subject}, at dawn\",10,\"16:9,9:16\",fox,\n,,,,\n\
                    b,,,,first_frame=https://x.org/a.png reference_image=https://x.org/b.png\n";
        let rows = rows("p.csv", text).expect("rows");
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].at, "p.csv:2");
        assert_eq!(
            fields(&rows[0]),
            vec![("prompt", "a {subject}, at dawn"), ("ratio", "16:9,9:16"), ("seconds", "10"), ("subject", "fox")]
        );
        assert_eq!(rows[1].at, "p.csv:4");
        assert_eq!(rows[1].media.len(), 2);
    }

    #[test]
    fn csv_rows_of_the_wrong_length_are_named() {
        let errors = rows("p.csv", "prompt,seconds\na,5\nb\n").expect_err("bad");
        assert_eq!(errors.len(), 1);
        assert!(errors[0].to_string().starts_with("p.csv:3: row:"), "{}", errors[0]);
    }
}
