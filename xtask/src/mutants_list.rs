//! The committed lists of equivalent mutants, keyed so that they survive unrelated edits: a mutant is named by its
//! file, its mutation and its function (`crates/oa-pointer/src/fragment.rs: replace | with ^ in decode`), never by
//! its line and column, which move whenever code above it does. A key that several mutants of one function share
//! (the same mutation twice in it) is told apart by its occurrence in source order, `@2`. Every entry must match
//! exactly one mutant that cargo-mutants lists today: an entry that matches none (the code went, or changed) or
//! several (ambiguous) is an error, so the list cannot go stale unnoticed.

use std::path::Path;
use std::process::Command;

/// One mutant as cargo-mutants names it: `FILE:LINE:COL: MUTATION in FUNCTION`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mutant {
    /// `FILE: MUTATION in FUNCTION`, the name without its position.
    pub(crate) key: String,
    line: u32,
    column: u32,
    /// The name as cargo-mutants gave it.
    pub(crate) name: String,
}

impl Mutant {
    /// Reads cargo-mutants' name; `None` for a line that is not one.
    pub(crate) fn parse(name: &str) -> Option<Self> {
        let (position, mutation) = name.split_once(": ")?;
        let mut parts = position.rsplitn(3, ':');
        let column = parts.next()?.parse().ok()?;
        let line = parts.next()?.parse().ok()?;
        let file = parts.next()?;
        Some(Self {
            key: format!("{file}: {mutation}"),
            line,
            column,
            name: name.to_owned(),
        })
    }

    /// Which of the mutants sharing its key this is, 1-based, in source order.
    fn occurrence(&self, all: &[Mutant]) -> usize {
        all.iter()
            .filter(|other| other.key == self.key && (other.line, other.column) < (self.line, self.column))
            .count()
            + 1
    }
}

/// One line of a list: a key, and the occurrence it names when its key is shared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    key: String,
    occurrence: Option<usize>,
}

impl Entry {
    /// Whether this entry names `mutant`.
    fn names(&self, mutant: &Mutant, all: &[Mutant]) -> bool {
        self.key == mutant.key && self.occurrence.is_none_or(|n| n == mutant.occurrence(all))
    }
}

impl std::fmt::Display for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.occurrence {
            Some(n) => write!(f, "{} @{n}", self.key),
            None => f.write_str(&self.key),
        }
    }
}

/// The entries of a list file's text: each line's text before `  #`, blank lines and comments skipped.
///
/// # Errors
/// A line keyed by position (`FILE:LINE:COL: ...`, the old form) or with a malformed `@N`.
pub(crate) fn parse(text: &str) -> Result<Vec<Entry>, String> {
    let mut entries = Vec::new();
    for line in text
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
    {
        let spec = line.split("  #").next().unwrap_or(line).trim_end();
        if Mutant::parse(spec).is_some() {
            return Err(format!(
                "{spec}: keyed by line and column; name it by file, mutation and function (drop `:LINE:COL`)"
            ));
        }
        let (key, occurrence) = match spec.rsplit_once(" @") {
            Some((key, n)) => {
                let n = n.parse().map_err(|_| format!("{spec}: `@N` must be a number"))?;
                (key, Some(n))
            }
            None => (spec, None),
        };
        entries.push(Entry {
            key: key.to_owned(),
            occurrence,
        });
    }
    Ok(entries)
}

/// The entries of the list at `path` (none when it is absent).
pub(crate) fn read(path: &Path) -> Result<Vec<Entry>, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => parse(&text).map_err(|problem| format!("{}: {problem}", path.display())),
        Err(_) => Ok(Vec::new()),
    }
}

/// Whether some entry names `mutant`, one of `all` (every mutant of its scope, for occurrences).
pub(crate) fn covers(entries: &[Entry], mutant: &Mutant, all: &[Mutant]) -> bool {
    entries.iter().any(|entry| entry.names(mutant, all))
}

/// What is wrong with `entries` against the mutants cargo-mutants lists today: each entry that names no mutant,
/// or several.
pub(crate) fn stale(entries: &[Entry], all: &[Mutant]) -> Vec<String> {
    let mut problems = Vec::new();
    for entry in entries {
        match all.iter().filter(|mutant| entry.names(mutant, all)).count() {
            1 => {}
            0 => problems.push(format!("{entry}: matches no mutant (the code changed or went): remove it")),
            n => problems.push(format!(
                "{entry}: matches {n} mutants (the mutation occurs {n} times in the function): add `@N` for the one \
                 that is equivalent"
            )),
        }
    }
    problems
}

/// Every mutant cargo-mutants lists for a scope (`args`: its package and file selection), in its order.
pub(crate) fn list(root: &Path, args: &[&str]) -> Result<Vec<Mutant>, String> {
    // Test arguments only matter to a run.
    let selection: Vec<&str> = args
        .iter()
        .copied()
        .filter(|arg| !arg.starts_with("--cargo-test-arg"))
        .collect();
    let output = Command::new("cargo")
        .env_remove("RUSTUP_TOOLCHAIN")
        .current_dir(root)
        .args(["mutants", "--list", "--json"])
        .args(&selection)
        .output()
        .map_err(|e| format!("could not run cargo mutants --list: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo mutants --list {} failed: {}",
            selection.join(" "),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let listed: Vec<serde_json::Value> = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("cargo mutants --list --json: not a JSON array: {e}"))?;
    Ok(listed
        .iter()
        .filter_map(|mutant| mutant["name"].as_str().and_then(Mutant::parse))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mutants(names: &[&str]) -> Vec<Mutant> {
        names.iter().map(|name| Mutant::parse(name).unwrap()).collect()
    }

    #[test]
    fn a_key_survives_a_move_and_an_occurrence_tells_repeats_apart() {
        let entries = parse(
            "# a comment\n\ncrates/p/src/a.rs: replace + with * in push  # capacity only\n\
             crates/p/src/a.rs: replace - with + in push @2  # the second one only\n",
        )
        .unwrap();
        let before = mutants(&[
            "crates/p/src/a.rs:10:5: replace + with * in push",
            "crates/p/src/a.rs:11:7: replace - with + in push",
            "crates/p/src/a.rs:12:7: replace - with + in push",
        ]);
        // Thirty lines added above: every position moves, every key holds.
        let after = mutants(&[
            "crates/p/src/a.rs:40:5: replace + with * in push",
            "crates/p/src/a.rs:41:7: replace - with + in push",
            "crates/p/src/a.rs:42:7: replace - with + in push",
        ]);
        for all in [&before, &after] {
            assert!(stale(&entries, all).is_empty(), "{:?}", stale(&entries, all));
            assert!(covers(&entries, &all[0], all));
            assert!(!covers(&entries, &all[1], all), "the first `-` is not listed");
            assert!(covers(&entries, &all[2], all));
        }
    }

    #[test]
    fn an_entry_that_matches_no_mutant_or_several_is_stale() {
        let all = mutants(&[
            "crates/p/src/a.rs:10:5: replace + with * in push",
            "crates/p/src/a.rs:12:7: replace + with * in push",
        ]);
        let gone = parse("crates/p/src/a.rs: replace == with != in pop  # gone\n").unwrap();
        assert_eq!(stale(&gone, &all).len(), 1);
        let ambiguous = parse("crates/p/src/a.rs: replace + with * in push  # which?\n").unwrap();
        assert!(stale(&ambiguous, &all)[0].contains("matches 2 mutants"));
        let told_apart = parse("crates/p/src/a.rs: replace + with * in push @2  # this one\n").unwrap();
        assert!(stale(&told_apart, &all).is_empty());
        let beyond = parse("crates/p/src/a.rs: replace + with * in push @3  # none\n").unwrap();
        assert_eq!(stale(&beyond, &all).len(), 1);
    }

    #[test]
    fn a_line_keyed_by_position_is_refused() {
        let error = parse("crates/p/src/a.rs:10:5: replace + with * in push  # old form\n").unwrap_err();
        assert!(error.contains("keyed by line and column"), "{error}");
        assert!(parse("crates/p/src/a.rs: replace + with * in push @x\n").is_err());
    }

    #[test]
    fn a_name_with_colons_in_its_function_parses() {
        let mutant = Mutant::parse(
            "crates/oa-pointer/src/location.rs:485:32: replace && with || in <impl Ord for Location>::cmp",
        )
        .unwrap();
        assert_eq!(
            mutant.key,
            "crates/oa-pointer/src/location.rs: replace && with || in <impl Ord for Location>::cmp"
        );
        assert_eq!((mutant.line, mutant.column), (485, 32));
        assert!(Mutant::parse("Found 32 mutants to test").is_none());
    }
}
