//! Reproduction reports: one row per solved instance beside what the
//! literature says, rendered as text, Markdown, JSON and an SVG heat map.

use std::fmt::Write;

use serde::Serialize;

use crate::published::{Claim, Outcome};
use crate::service::answer::round3;

/// How a computed value compares with the literature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// The published value (or outcome) is what we computed.
    Match,
    /// It is not.
    Mismatch,
    /// Nothing is published for this instance.
    Unpublished,
}

impl Status {
    /// The mark printed in tables.
    pub fn mark(self) -> &'static str {
        match self {
            Status::Match => "ok",
            Status::Mismatch => "MISMATCH",
            Status::Unpublished => "-",
        }
    }
}

/// One solved instance.
#[derive(Clone, Debug)]
pub struct Row {
    pub pits: usize,
    pub seeds: usize,
    pub empty_capture: bool,
    /// The first player's final store difference, as computed.
    pub value: i32,
    pub claim: Option<Claim>,
    pub seconds: f64,
    pub nodes: u64,
    /// The pie-rule value for the first player, and the fairest openings
    /// (docs/RULES.md turn notation), when asked for.
    pub pie: Option<(i32, Vec<String>)>,
    /// A best first turn.
    pub best_turn: String,
}

impl Row {
    /// Compares the value with the claim.
    pub fn status(&self) -> Status {
        match &self.claim {
            None => Status::Unpublished,
            Some(c) => {
                let ok = match (c.value, c.outcome) {
                    (Some(v), _) => v == self.value,
                    (None, Some(o)) => o == Outcome::of(self.value),
                    (None, None) => true,
                };
                if ok {
                    Status::Match
                } else {
                    Status::Mismatch
                }
            }
        }
    }

    /// The eight leading cells of the text and Markdown tables, in order:
    /// m, n, rule, ours, published, source, check, best first turn.
    fn cells(&self) -> [String; 8] {
        [
            self.pits.to_string(),
            self.seeds.to_string(),
            self.rule_name().to_string(),
            signed(self.value),
            self.published_text(),
            self.source().to_string(),
            self.status().mark().to_string(),
            self.best_turn.clone(),
        ]
    }

    /// "EC" or "STD".
    pub fn rule_name(&self) -> &'static str {
        if self.empty_capture {
            "EC"
        } else {
            "STD"
        }
    }

    /// The published value or outcome as printed, "-" if none.
    pub fn published_text(&self) -> String {
        match &self.claim {
            Some(Claim { value: Some(v), .. }) => signed(*v),
            Some(Claim {
                outcome: Some(o), ..
            }) => o.letter().to_string(),
            _ => "-".to_string(),
        }
    }

    fn source(&self) -> &str {
        self.claim.as_ref().map_or("-", |c| c.source)
    }

    /// The JSON object of the row (docs/json.md).
    pub fn json(&self) -> RowJson<'_> {
        RowJson {
            pits: self.pits,
            seeds: self.seeds,
            rules: if self.empty_capture { "ec" } else { "std" },
            value: self.value,
            result: Outcome::of(self.value),
            published: self.claim.as_ref().and_then(|c| c.value),
            published_outcome: self
                .claim
                .as_ref()
                .and_then(|c| c.implied_outcome())
                .map(|o| o.letter()),
            source: self.claim.as_ref().map(|c| c.source),
            status: self.status().mark(),
            best_turn: &self.best_turn,
            seconds: round3(self.seconds),
            nodes: self.nodes,
            pie_value: self.pie.as_ref().map(|(v, _)| *v),
            fairest: self.pie.as_ref().map(|(_, f)| f.as_slice()),
        }
    }
}

/// A row's JSON object: the first player's value and the literature's.
#[derive(Serialize)]
pub struct RowJson<'a> {
    pub pits: usize,
    pub seeds: usize,
    /// The rules' slug ([`kalah_solver::Rules::slug`]): the sweep end rule.
    pub rules: &'static str,
    pub value: i32,
    pub result: Outcome,
    pub published: Option<i32>,
    pub published_outcome: Option<char>,
    pub source: Option<&'static str>,
    pub status: &'static str,
    pub best_turn: &'a str,
    pub seconds: f64,
    pub nodes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pie_value: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fairest: Option<&'a [String]>,
}

/// A replayed published perfect game.
#[derive(Clone, Debug)]
pub struct GameCheck {
    pub pits: usize,
    pub seeds: usize,
    pub line: String,
    pub published: i32,
    /// The final score the replay reached, or why it failed.
    pub reached: Result<i32, String>,
}

impl GameCheck {
    pub fn ok(&self) -> bool {
        self.reached.as_ref().is_ok_and(|&v| v == self.published)
    }

    pub fn json(&self) -> GameCheckJson<'_> {
        GameCheckJson {
            pits: self.pits,
            seeds: self.seeds,
            line: &self.line,
            published: self.published,
            reached: self.reached.as_ref().ok().copied(),
            error: self.reached.as_ref().err().map(String::as_str),
            ok: self.ok(),
        }
    }
}

/// A replayed game's JSON object.
#[derive(Serialize)]
pub struct GameCheckJson<'a> {
    pub pits: usize,
    pub seeds: usize,
    pub line: &'a str,
    pub published: i32,
    pub reached: Option<i32>,
    pub error: Option<&'a str>,
    pub ok: bool,
}

/// "+2", "0", "-4".
pub fn signed(v: i32) -> String {
    if v > 0 {
        format!("+{v}")
    } else {
        v.to_string()
    }
}

/// The text table's leading cells at their widths (negative: left-aligned),
/// the one layout of the header and of every row.
fn text_cells<S: AsRef<str>>(cells: &[S; 8]) -> String {
    const WIDTHS: [isize; 8] = [2, 2, -4, 5, 9, -18, -8, -10];
    let mut s = String::new();
    for (i, (cell, w)) in cells.iter().zip(WIDTHS).enumerate() {
        let (cell, width) = (cell.as_ref(), w.unsigned_abs());
        let sep = match i {
            0 => "",
            5 => "  ", // the source column stands apart
            _ => " ",
        };
        let _ = if w < 0 {
            write!(s, "{sep}{cell:<width$}")
        } else {
            write!(s, "{sep}{cell:>width$}")
        };
    }
    s
}

/// The plain-text header and row, for streaming output.
pub fn text_header(pie: bool) -> String {
    let mut s = text_cells(&[
        "m",
        "n",
        "rule",
        "ours",
        "published",
        "source",
        "check",
        "best turn",
    ]);
    if pie {
        let _ = write!(s, " {:>4} {:<14}", "pie", "fairest");
    }
    let _ = write!(s, " {:>9} {:>14}", "seconds", "nodes");
    s
}

pub fn text_row(r: &Row) -> String {
    let mut s = text_cells(&r.cells());
    if let Some((v, fairest)) = &r.pie {
        let _ = write!(s, " {:>4} {:<14}", signed(*v), fairest.join(","));
    }
    let _ = write!(s, " {:>9.2} {:>14}", r.seconds, r.nodes);
    s
}

/// The Markdown report: the instance table, then the replayed games.
pub fn markdown(rows: &[Row], games: &[GameCheck]) -> String {
    let pie = rows.iter().any(|r| r.pie.is_some());
    let mut s = String::from("# Kalah: solved values beside the literature\n\n");
    s.push_str(
        "Values are the first player's final store difference under perfect play. \
         EC = empty capture, STD = standard rule (docs/RULES.md). \
         The sources are cited in full in docs/REFERENCES.md.\n\n",
    );
    s.push_str("| m | n | rule | ours | published | source | check | best first turn |");
    if pie {
        s.push_str(" pie value | fairest opening |");
    }
    s.push_str(" seconds | nodes |\n|---|---|---|---|---|---|---|---|");
    if pie {
        s.push_str("---|---|");
    }
    s.push_str("---|---|\n");
    for r in rows {
        let _ = write!(s, "| {} |", r.cells().join(" | "));
        if let Some((v, fairest)) = &r.pie {
            let _ = write!(s, " {} | {} |", signed(*v), fairest.join(", "));
        } else if pie {
            s.push_str(" | |");
        }
        let _ = writeln!(s, " {:.2} | {} |", r.seconds, r.nodes);
    }
    s.push_str("\n## IDU perfect games replayed (empty capture)\n\n");
    s.push_str("| m(n) | published | reached | check | line |\n|---|---|---|---|---|\n");
    for g in games {
        let reached = match &g.reached {
            Ok(v) => signed(*v),
            Err(e) => format!("error: {e}"),
        };
        let _ = writeln!(
            s,
            "| {}({}) | {} | {} | {} | `{}` |",
            g.pits,
            g.seeds,
            signed(g.published),
            reached,
            if g.ok() { "ok" } else { "MISMATCH" },
            g.line
        );
    }
    s
}

/// Escapes text for XML.
fn xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Fill colour for a value: blue for first-player wins, red for losses,
/// white for draws, deeper with the margin.
fn colour(value: i32, scale: i32) -> String {
    let t = (value.unsigned_abs() as f64 / scale.max(1) as f64).min(1.0);
    let fade = |c: f64| (255.0 - (255.0 - c) * t).round() as u8;
    let (r, g, b) = if value >= 0 {
        (fade(33.0), fade(102.0), fade(172.0))
    } else {
        (fade(178.0), fade(24.0), fade(43.0))
    };
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// An SVG heat map: one m-by-n grid per rule, each cell the computed value,
/// a thick outline where it disagrees with the literature, grey where the
/// instance was not solved.
pub fn svg(rows: &[Row]) -> String {
    let max_m = rows.iter().map(|r| r.pits).max().unwrap_or(1);
    let max_n = rows.iter().map(|r| r.seeds).max().unwrap_or(1);
    let scale = rows.iter().map(|r| r.value.abs()).max().unwrap_or(1);
    let cell = 56;
    let (left, top, gap) = (60, 70, 50);
    let grid_w = cell * max_n;
    let rules: Vec<bool> = [true, false]
        .into_iter()
        .filter(|ec| rows.iter().any(|r| r.empty_capture == *ec))
        .collect();
    let width = left + rules.len() * (grid_w + gap) + 20;
    let height = top + cell * max_m + 60;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif">"#
    );
    let _ = writeln!(
        s,
        r#"<title>Kalah(m,n): first player's final store difference under perfect play</title>"#
    );
    let _ = writeln!(
        s,
        r#"<rect width="{width}" height="{height}" fill="white"/>"#
    );
    let _ = writeln!(
        s,
        r#"<text x="{left}" y="24" font-size="16">Kalah(m,n) solved values (first player's margin)</text>"#
    );
    for (g, &ec) in rules.iter().enumerate() {
        let x0 = left + g * (grid_w + gap);
        let name = if ec { "empty capture" } else { "standard" };
        let _ = writeln!(
            s,
            r#"<text x="{x0}" y="{}" font-size="14">{}</text>"#,
            top - 28,
            xml(name)
        );
        for n in 1..=max_n {
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}" font-size="12" text-anchor="middle">n={n}</text>"#,
                x0 + (n - 1) * cell + cell / 2,
                top - 8
            );
        }
        for m in 1..=max_m {
            let y = top + (m - 1) * cell;
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}" font-size="12" text-anchor="end">m={m}</text>"#,
                x0 - 6,
                y + cell / 2 + 4
            );
            for n in 1..=max_n {
                let x = x0 + (n - 1) * cell;
                let row = rows
                    .iter()
                    .find(|r| r.empty_capture == ec && r.pits == m && r.seeds == n);
                let (fill, label, stroke, sw) = match row {
                    None => ("#dddddd".to_string(), String::new(), "#999999", 1),
                    Some(r) => {
                        let bad = r.status() == Status::Mismatch;
                        (
                            colour(r.value, scale),
                            signed(r.value),
                            if bad { "#000000" } else { "#999999" },
                            if bad { 4 } else { 1 },
                        )
                    }
                };
                let _ = writeln!(
                    s,
                    r#"<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{fill}" stroke="{stroke}" stroke-width="{sw}"/>"#
                );
                if !label.is_empty() {
                    let _ = writeln!(
                        s,
                        r#"<text x="{}" y="{}" font-size="14" text-anchor="middle">{}</text>"#,
                        x + cell / 2,
                        y + cell / 2 + 5,
                        xml(&label)
                    );
                }
            }
        }
    }
    let _ = writeln!(
        s,
        r#"<text x="{left}" y="{}" font-size="11">blue: first player wins, red: loses, white: draw; outlined: disagrees with the literature; grey: not solved</text>"#,
        height - 16
    );
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text and Markdown tables keep their layout (one row, both
    /// renderings, written out in full).
    #[test]
    fn text_and_markdown_rows_keep_their_layout() {
        let row = Row {
            pits: 6,
            seeds: 4,
            empty_capture: false,
            value: 8,
            claim: None,
            seconds: 1.5,
            nodes: 42,
            pie: None,
            best_turn: "3 6".to_string(),
        };
        assert_eq!(
            text_header(false),
            " m  n rule  ours published  source             check    best turn    seconds          nodes"
        );
        assert_eq!(
            text_row(&row),
            " 6  4 STD     +8         -  -                  -        3 6             1.50             42"
        );
        assert!(
            markdown(&[row], &[]).contains("| 6 | 4 | STD | +8 | - | - | - | 3 6 | 1.50 | 42 |\n")
        );
    }
}
