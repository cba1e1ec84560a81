//! What the user is told about references that resolve to nothing: an input error naming the reference, where it
//! sits, that oa never fetches and how to give it, when an instance reaches one; a warning, once each, for those no
//! instance reached.

use oa_schema::{RetrieveError, UnresolvedCause, UnresolvedReference, Validator, Violations};
use std::collections::BTreeSet;
use std::sync::Mutex;

/// The unresolved references the instances of a run reached, by location (shared by the threads of a batch).
#[derive(Debug, Default)]
pub(crate) struct Reached(Mutex<BTreeSet<String>>);

impl Reached {
    /// Records the unresolved references a report says were reached; whether there were any.
    pub(crate) fn note(&self, violations: &Violations) -> bool {
        let mut reached = false;
        for violation in violations {
            if violation.unresolved_reference().is_some() {
                reached = true;
                if let Ok(mut seen) = self.0.lock() {
                    seen.insert(violation.schema_location().absolute().to_owned());
                }
            }
        }
        reached
    }

    /// Warns (stderr, prefixed by `command`) about each URI the schema refers to that resolves to nothing and that
    /// no instance reached: once per URI, naming where it sits (and in how many more places).
    pub(crate) fn warn_unreached(&self, validator: &Validator, command: &str) {
        let seen = self.0.lock().map(|seen| seen.clone()).unwrap_or_default();
        let mut by_uri: Vec<(&str, Vec<&UnresolvedReference>)> = Vec::new();
        for entry in validator.unresolved_references() {
            if seen.contains(entry.location()) {
                continue;
            }
            match by_uri.iter_mut().find(|(uri, _)| *uri == entry.uri()) {
                Some((_, entries)) => entries.push(entry),
                None => by_uri.push((entry.uri(), vec![entry])),
            }
        }
        let mut hint = false;
        for (_, entries) in by_uri {
            let Some(first) = entries.first() else {
                continue;
            };
            let more = match entries.len() {
                1 => String::new(),
                2 => " (and 1 more place)".to_owned(),
                n => format!(" (and {} more places)", n - 1),
            };
            eprintln!(
                "{command}: warning: {}{more}: {}; no instance reached it",
                named(first),
                cause(first)
            );
            hint |= needs_hint(first);
        }
        if hint {
            eprintln!("{command}: {HINT}");
        }
    }
}

/// The input error for an instance whose evaluation reached a reference that resolves to nothing (`None` when it
/// reached none): each such reference, where it sits, why nothing is there, and how to give it.
pub(crate) fn unresolved_reached(validator: &Validator, violations: &Violations) -> Option<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut hint = false;
    for violation in violations {
        if violation.unresolved_reference().is_none() {
            continue;
        }
        let location = violation.schema_location().absolute();
        let Some(entry) = validator
            .unresolved_references()
            .iter()
            .find(|entry| entry.location() == location)
        else {
            continue;
        };
        let line = format!(
            "{} (reached at {}): {}",
            named(entry),
            violation.instance_location().to_fragment(),
            cause(entry)
        );
        hint |= needs_hint(entry);
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    (!lines.is_empty()).then(|| {
        let hint = if hint { format!("\n{HINT}") } else { String::new() };
        format!(
            "no verdict: the instance reaches a reference that resolves to no schema:\n  {}{hint}",
            lines.join("\n  ")
        )
    })
}

/// `$ref "address.json" at file:///s/person.json#/properties/home/$ref (file:///s/address.json)`.
fn named(entry: &UnresolvedReference) -> String {
    let target = if entry.uri() == entry.reference() {
        String::new()
    } else {
        format!(" ({})", entry.uri())
    };
    format!(
        "{} {:?} at {}{target}",
        entry.keyword(),
        entry.reference(),
        entry.location()
    )
}

/// How to give oa a document it does not have.
const HINT: &str = "oa never fetches schemas (over the network or otherwise): give a document with --resource FILE, \
                    or a folder of them with --resource-dir DIR";

/// Whether the cause is a document oa does not have (rather than one it has, that says otherwise).
fn needs_hint(entry: &UnresolvedReference) -> bool {
    matches!(entry.cause(), UnresolvedCause::NoDocument)
}

/// Why nothing is there.
fn cause(entry: &UnresolvedReference) -> String {
    match entry.cause() {
        UnresolvedCause::NoDocument if entry.uri().starts_with("file:") => "no such file".to_owned(),
        UnresolvedCause::NoDocument => "no schema oa was given has that URI".to_owned(),
        UnresolvedCause::NotInDocument => "its document has no schema at that fragment".to_owned(),
        UnresolvedCause::Retrieval(RetrieveError::Ambiguous { claimants }) => format!(
            "ambiguous: claimed by {} (give the one meant with --resource FILE)",
            claimants.join(" and ")
        ),
        UnresolvedCause::Retrieval(error) => error.to_string(),
        _ => "it resolves to no schema".to_owned(),
    }
}
