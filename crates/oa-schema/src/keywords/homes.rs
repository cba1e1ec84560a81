//! INTERNALS.md's table of keyword homes, held against the code: every keyword of every draft has a row, each row's
//! home is there, and the files that name a row's `Keyword` variants (outside the six dispatch sites and the home)
//! are the ones the row lists. A keyword added, moved or newly looked at elsewhere fails here until its row says so.

use crate::dialect;
use crate::draft::Draft;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The files every compiled keyword passes through (INTERNALS.md names them above the table).
const DISPATCH_SITES: [&str; 6] = [
    "keywords/mod.rs",
    "flag/plan.rs",
    "flag/mod.rs",
    "typed/plan.rs",
    "bundle/parts.rs",
    "bundle/layout.rs",
];

/// One row: its keywords, the variants they compile to, the home, the other files.
struct Row {
    keywords: Vec<String>,
    variants: Vec<String>,
    home: String,
    also: BTreeSet<String>,
}

/// The backticked items of a table cell.
fn items(cell: &str) -> Vec<String> {
    cell.split(',')
        .map(|item| item.trim().trim_matches('`').to_owned())
        .filter(|item| !item.is_empty())
        .collect()
}

fn rows() -> Vec<Row> {
    let text = include_str!("../../INTERNALS.md");
    let start = text
        .find("<!-- keyword-homes: begin -->")
        .expect("INTERNALS.md has the keyword table's begin marker");
    let end = text
        .find("<!-- keyword-homes: end -->")
        .expect("INTERNALS.md has the keyword table's end marker");
    text[start..end]
        .lines()
        .filter(|line| line.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split('|').collect();
            assert_eq!(cells.len(), 4, "a row has four cells: {line}");
            let home = items(cells[2]);
            assert_eq!(home.len(), 1, "a row has one home: {line}");
            Row {
                keywords: items(cells[0]),
                variants: items(cells[1]),
                home: home[0].clone(),
                also: items(cells[3]).into_iter().collect(),
            }
        })
        .collect()
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every source file under `src/` but tests, by its path from `src/`, with its text up to its `tests` module and
/// without comment lines.
fn sources() -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut folders = vec![src()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("src/ is readable") {
            let path = entry.expect("a directory entry").path();
            let name = path
                .file_name()
                .and_then(|name| name.to_str())
                .unwrap_or_default();
            if path.is_dir() {
                if name != "tests" {
                    folders.push(path);
                }
                continue;
            }
            if !name.ends_with(".rs") || name == "tests.rs" || name.ends_with("_tests.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("a source file is readable");
            // The test module (`#[cfg(test)]` then `mod tests`) ends the code.
            let lines: Vec<&str> = text.lines().collect();
            let end = lines
                .windows(2)
                .position(|pair| pair[0] == "#[cfg(test)]" && pair[1].starts_with("mod tests"))
                .unwrap_or(lines.len());
            let code: Vec<&str> = lines[..end]
                .iter()
                .copied()
                .filter(|line| !line.trim_start().starts_with("//"))
                .collect();
            let relative = path
                .strip_prefix(src())
                .expect("under src/")
                .to_string_lossy()
                .replace('\\', "/");
            found.push((relative, code.join("\n")));
        }
    }
    found
}

/// Whether `code` names `Keyword::variant` (not a longer variant that starts the same).
fn names_variant(code: &str, variant: &str) -> bool {
    let needle = format!("Keyword::{variant}");
    code.match_indices(&needle).any(|(at, _)| {
        !code[at + needle.len()..]
            .chars()
            .next()
            .is_some_and(|next| next.is_alphanumeric() || next == '_')
    })
}

#[test]
fn every_keyword_of_every_draft_has_a_row() {
    let listed: BTreeSet<String> = rows().into_iter().flat_map(|row| row.keywords).collect();
    let known: BTreeSet<String> = Draft::ALL
        .iter()
        .flat_map(|draft| dialect::keywords(*draft))
        .map(|spec| spec.name.to_owned())
        .collect();
    let missing: Vec<_> = known.difference(&listed).collect();
    let unknown: Vec<_> = listed.difference(&known).collect();
    assert!(
        missing.is_empty(),
        "keywords without a row in INTERNALS.md: {missing:?}"
    );
    assert!(
        unknown.is_empty(),
        "rows for keywords no draft knows: {unknown:?}"
    );
}

#[test]
fn each_row_lists_the_files_that_name_its_keywords() {
    let sources = sources();
    let exists = |file: &str| sources.iter().any(|(path, _)| path == file);
    let rows = rows();
    assert!(rows.len() > 20, "the table was read ({} rows)", rows.len());
    for row in &rows {
        assert!(
            exists(&row.home),
            "{:?}: home {} is not in src/",
            row.keywords,
            row.home
        );
        for file in &row.also {
            assert!(exists(file), "{:?}: {file} is not in src/", row.keywords);
        }
        if row.variants.is_empty() {
            continue;
        }
        for site in DISPATCH_SITES {
            let (_, code) = sources
                .iter()
                .find(|(path, _)| path == site)
                .expect("a dispatch site");
            for variant in &row.variants {
                assert!(
                    names_variant(code, variant),
                    "{site} does not dispatch Keyword::{variant}"
                );
            }
        }
        let naming: BTreeSet<String> = sources
            .iter()
            .filter(|(path, code)| {
                !DISPATCH_SITES.contains(&path.as_str())
                    && *path != row.home
                    && row.variants.iter().any(|variant| names_variant(code, variant))
            })
            .map(|(path, _)| path.clone())
            .collect();
        assert_eq!(
            naming, row.also,
            "{:?}: the files that name {:?} (left) are not the ones the row lists (right)",
            row.keywords, row.variants
        );
        assert!(
            row.variants.iter().any(|variant| {
                sources
                    .iter()
                    .any(|(path, code)| *path == row.home && names_variant(code, variant))
            }),
            "{:?}: the home {} names none of {:?}",
            row.keywords,
            row.home,
            row.variants
        );
    }
}

#[test]
fn every_variant_of_keyword_has_a_row() {
    // `Keyword`'s variants as declared, against the rows' together: a variant no row lists has no home.
    let listed: BTreeSet<String> = rows().into_iter().flat_map(|row| row.variants).collect();
    let (_, code) = sources()
        .into_iter()
        .find(|(path, _)| path == "keywords/mod.rs")
        .expect("keywords/mod.rs");
    let start = code.find("pub(crate) enum Keyword {").expect("the Keyword enum");
    let body = &code[start..];
    let end = body.find("\n}").expect("the enum's end");
    let declared: BTreeSet<String> = body[..end]
        .lines()
        .skip(1)
        .filter_map(|line| {
            let line = line.strip_prefix("    ")?;
            let name: String = line.chars().take_while(|c| c.is_alphanumeric()).collect();
            (!name.is_empty() && name.starts_with(|c: char| c.is_uppercase())).then_some(name)
        })
        .collect();
    assert_eq!(
        declared, listed,
        "Keyword's variants (left) against the table's (right)"
    );
}
