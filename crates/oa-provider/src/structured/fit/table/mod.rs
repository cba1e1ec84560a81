//! The provider table: for each mapping's native structured path, which keywords and constructs the vendor enforces,
//! accepts, rejects with a 400, silently ignores, or leaves uncertain, what fitting does with each, and the source
//! checked. The crate README carries the same table, rendered from these rows (a test keeps them equal).
//!
//! An uncertain row is never counted as enforced: fitting either leaves the keyword out (`dropped_uncertain`) or
//! sends it and lists it in the account (`kept_uncertain`), so oa's local validation is what holds it either way.

use serde_json::Value;

use super::account::Reason;
use crate::model::Mapping;

/// What a provider does with a construct on its native structured path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stance {
    /// Accepted and enforced while decoding.
    Enforced,
    /// Accepted; carries no assertion to enforce (an annotation) or is the provider's own requirement.
    Accepted,
    /// Refused with a 400.
    Rejected,
    /// Accepted and silently not enforced.
    Ignored,
    /// The documentation is unclear or silent.
    Uncertain,
}

/// What fitting does with a construct.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    /// Sent as written.
    Keep,
    /// Left out.
    Drop,
    /// Sent in a weaker form.
    Relax,
    /// Said another way the provider takes, accepting the same answers.
    Rewrite,
    /// Sent in a narrower form (fewer answers), never wider.
    Narrow,
    /// Recursion unrolled to a fixed depth (a narrowing).
    Unroll,
    /// Not fittable: a typed fit failure.
    Fail,
}

/// One row: a construct on one mapping.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Row {
    pub(crate) mapping: Mapping,
    /// A keyword, or a keyword with the values the row covers (`format (other)`), or a construct.
    pub(crate) construct: &'static str,
    pub(crate) stance: Stance,
    pub(crate) action: Action,
    /// What fitting does, in a few words (the README's column; read by its test).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fit: &'static str,
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) source: &'static Source,
}

/// Where a row comes from and when it was checked.
#[derive(Debug)]
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) struct Source {
    /// The short tag the README's rows cite.
    pub(crate) tag: &'static str,
    pub(crate) name: &'static str,
    pub(crate) checked: &'static str,
}

impl Row {
    /// The account reason for a clause this row covers, or `None` when the provider enforces it (or it is not a
    /// clause fitting removes).
    pub(crate) fn reason(&self) -> Option<Reason> {
        match (self.action, self.stance) {
            (Action::Keep, Stance::Ignored) => Some(Reason::KeptIgnored),
            (Action::Keep, Stance::Uncertain) => Some(Reason::KeptUncertain),
            (Action::Drop, Stance::Rejected) => Some(Reason::DroppedRejected),
            (Action::Drop, Stance::Ignored) => Some(Reason::DroppedIgnored),
            (Action::Drop, Stance::Uncertain | Stance::Enforced | Stance::Accepted) => {
                Some(Reason::DroppedUncertain)
            }
            (Action::Relax, _) => Some(Reason::Relaxed),
            _ => None,
        }
    }
}

const SPEC: Source = Source {
    tag: "S",
    name: "llm-provider §5: a response_schema has an object at its top",
    checked: "2026-12-07",
};

use Mapping::{Anthropic, Gemini, OpenAi};

/// A row of the table; without the fit words, a `Drop` row's are "dropped" and a `Keep` row's "sent" (the two
/// words most rows say).
macro_rules! row {
    ($mapping:ident, $construct:expr, $stance:ident, Drop, $source:ident) => {
        row!($mapping, $construct, $stance, Drop, "dropped", $source)
    };
    ($mapping:ident, $construct:expr, $stance:ident, Keep, $source:ident) => {
        row!($mapping, $construct, $stance, Keep, "sent", $source)
    };
    ($mapping:ident, $construct:expr, $stance:ident, $action:ident, $fit:expr, $source:ident) => {
        Row {
            mapping: $mapping,
            construct: $construct,
            stance: $stance,
            action: $action,
            fit: $fit,
            source: &$source,
        }
    };
}

// After the `row!` macro, which the vendors' files use.
mod anthropic;
mod gemini;
mod openai;

use anthropic::{ANTHROPIC_FORMATS, is_complex_for_anthropic};
use gemini::GEMINI_FORMATS;
use openai::OPENAI_FORMATS;

/// Every row, by mapping: OpenAI's, Anthropic's, then Gemini's, each in its table's order.
pub(crate) fn rows() -> impl Iterator<Item = &'static Row> {
    openai::ROWS.iter().chain(anthropic::ROWS).chain(gemini::ROWS)
}

/// The row for `construct` on `mapping`.
pub(crate) fn row(mapping: Mapping, construct: &str) -> Option<&'static Row> {
    rows().find(|row| row.mapping == mapping && row.construct == construct)
}

/// The row that covers `keyword` with this `value` on `mapping`, for the keywords fitting treats one by one (the
/// value matters for `format`, `pattern`, `minItems`); `None` for a keyword the table has no row for (an annotation
/// or a keyword outside draft 2020-12's vocabularies).
pub(crate) fn keyword_row(mapping: Mapping, keyword: &str, value: &Value) -> Option<&'static Row> {
    let construct = match (mapping, keyword) {
        (OpenAi, "format") => {
            if value.as_str().is_some_and(|name| OPENAI_FORMATS.contains(&name)) {
                "format (date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid)"
            } else {
                "format (other)"
            }
        }
        (Anthropic, "format") => {
            if value
                .as_str()
                .is_some_and(|name| ANTHROPIC_FORMATS.contains(&name))
            {
                "format (date-time, time, date, duration, email, hostname, uri, ipv4, ipv6, uuid)"
            } else {
                "format (other)"
            }
        }
        (Gemini, "format") => {
            if value.as_str().is_some_and(|name| GEMINI_FORMATS.contains(&name)) {
                "format (date-time, date, time)"
            } else {
                "format (other)"
            }
        }
        (OpenAi, "pattern") if value.as_str().is_some_and(has_lookaround) => "pattern (lookaround)",
        (Anthropic, "pattern") if value.as_str().is_some_and(is_complex_for_anthropic) => {
            "pattern (backreference, lookaround, \\b, \\B, a {n,m} bound over 100)"
        }
        (Anthropic, "minItems") => {
            if value.as_u64().is_some_and(|n| n <= 1) || value.as_f64().is_some_and(|n| n <= 1.0) {
                "minItems (0 or 1)"
            } else {
                "minItems (over 1)"
            }
        }
        (_, keyword) => keyword,
    };
    row(mapping, construct)
}

/// Whether an ECMA-262 pattern has a lookahead or lookbehind group.
pub(crate) fn has_lookaround(pattern: &str) -> bool {
    let mut escaped = false;
    let bytes = pattern.as_bytes();
    for (idx, byte) in bytes.iter().enumerate() {
        if escaped {
            escaped = false;
            continue;
        }
        match byte {
            b'\\' => escaped = true,
            b'(' => {
                let rest = &bytes[idx + 1..];
                if rest.starts_with(b"?=")
                    || rest.starts_with(b"?!")
                    || rest.starts_with(b"?<=")
                    || rest.starts_with(b"?<!")
                {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// The table as Markdown, one table per mapping: what the crate README shows (its test compares them).
#[cfg(test)]
pub(crate) fn markdown() -> String {
    use Stance::{Accepted, Enforced, Ignored, Rejected, Uncertain};

    let mut out = String::new();
    for (mapping, title) in [
        (
            OpenAi,
            "OpenAI Chat Completions: `response_format` json_schema, `strict: true`",
        ),
        (
            Anthropic,
            "Anthropic Messages: `output_config.format` json_schema",
        ),
        (
            Gemini,
            "Gemini `generateContent`: `generationConfig.responseJsonSchema`",
        ),
    ] {
        out.push_str(&format!(
            "#### {title}\n\n| construct | provider | fitting | account | source |\n|---|---|---|---|---|\n"
        ));
        let mut cited: Vec<&Source> = Vec::new();
        for row in rows().filter(|row| row.mapping == mapping) {
            let stance = match row.stance {
                Enforced => "enforced",
                Accepted => "accepted",
                Rejected => "400",
                Ignored => "ignored",
                Uncertain => "uncertain",
            };
            let account = row.reason().map_or("", Reason::as_str);
            if !cited.iter().any(|source| source.tag == row.source.tag) {
                cited.push(row.source);
            }
            out.push_str(&format!(
                "| {} | {stance} | {} | {account} | {} |\n",
                row.construct.replace('|', "\\|"),
                row.fit.replace('|', "\\|"),
                row.source.tag
            ));
        }
        out.push('\n');
        for source in cited {
            out.push_str(&format!(
                "- {}: {} (checked {})\n",
                source.tag, source.name, source.checked
            ));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::Action::{Fail, Keep, Narrow, Rewrite};
    use super::Stance::Uncertain;
    use super::*;
    use serde_json::json;

    #[test]
    fn every_assertion_keyword_has_a_row_on_every_mapping() {
        for mapping in Mapping::ALL {
            for keyword in super::super::doc::SIMPLE {
                let value = match keyword {
                    "format" => json!("uuid"),
                    "pattern" => json!("^a"),
                    _ => json!(1),
                };
                assert!(
                    keyword_row(mapping, keyword, &value).is_some(),
                    "{mapping} has no row for {keyword}"
                );
            }
        }
    }

    #[test]
    fn rows_are_unique_and_every_uncertain_row_is_accounted_or_fails() {
        let all: Vec<&Row> = rows().collect();
        for (idx, row) in all.iter().enumerate() {
            assert!(
                !all[..idx]
                    .iter()
                    .any(|other| other.mapping == row.mapping && other.construct == row.construct),
                "{} {} twice",
                row.mapping,
                row.construct
            );
            if row.stance == Uncertain && !row.construct.contains("annotations") {
                assert!(
                    row.reason().is_some() || matches!(row.action, Narrow | Fail | Rewrite | Keep),
                    "{} {}: an uncertain row must never count as enforced",
                    row.mapping,
                    row.construct
                );
                if row.action == Keep {
                    assert_eq!(row.reason(), Some(Reason::KeptUncertain));
                }
            }
        }
    }

    #[test]
    fn value_dependent_rows() {
        let construct =
            |mapping, keyword, value: Value| keyword_row(mapping, keyword, &value).map(|row| row.construct);
        assert_eq!(construct(OpenAi, "format", json!("uri")), Some("format (other)"));
        assert_eq!(
            construct(Anthropic, "format", json!("uri")).map(|c| c.starts_with("format (date")),
            Some(true)
        );
        assert_eq!(
            construct(Anthropic, "minItems", json!(1)),
            Some("minItems (0 or 1)")
        );
        assert_eq!(
            construct(Anthropic, "minItems", json!(2)),
            Some("minItems (over 1)")
        );
        assert_eq!(
            construct(OpenAi, "pattern", json!("^(?!x)")),
            Some("pattern (lookaround)")
        );
        assert_eq!(construct(OpenAi, "pattern", json!("^\\(?!x")), Some("pattern"));
        for complex in ["(a)\\1", "\\bword", "a{1,200}", "(?<=x)y", "\\k<n>"] {
            assert!(is_complex_for_anthropic(complex), "{complex}");
        }
        for simple in ["^[a-z]{1,100}$", "\\d+", "[\\b]", "a\\\\b", "x{3}"] {
            assert!(!is_complex_for_anthropic(simple), "{simple}");
        }
    }

    #[test]
    fn print_table() {
        if let Ok(path) = std::env::var("OA_FIT_TABLE_OUT") {
            std::fs::write(path, markdown()).unwrap();
        }
    }

    #[test]
    fn the_readme_shows_the_table_as_the_code_has_it() {
        let readme = include_str!("../../../../README.md");
        let start = readme.find("<!-- fit-table:start -->").expect("start marker")
            + "<!-- fit-table:start -->\n".len();
        let end = readme.find("<!-- fit-table:end -->").expect("end marker");
        assert_eq!(
            &readme[start..end],
            markdown(),
            "regenerate the README's table from structured/fit/table/ (see the test's markdown())"
        );
    }
}
