//! The text rendering of a report: every violation in order, those from inside a failed union grouped under it as
//! its alternatives, so that a reader (or a model being reasked) sees "one of these must hold" rather than a flat
//! list in which nothing says that the lines are alternatives.
//!
//! The grouping is read from each violation's keyword path alone (`/properties/steps/items/oneOf/2/required`): the
//! first `anyOf`/`oneOf` member in it names the union and the alternative, and the applicators before it say how
//! many instance tokens deep the union applies. No violation is dropped or merged: the rendering orders and indents
//! the lines that the flat rendering would print, and repeats under each alternative a line that two members reach
//! (the report holds it once, with the other keyword paths set aside for this).

use std::collections::{HashMap, HashSet};

use crate::violation::Violation;

/// Where a violation enters a union member.
#[derive(Clone, Copy)]
struct Branch<'a> {
    /// The keyword path up to and including the union keyword (`/properties/steps/items/oneOf`).
    union_path: &'a str,
    /// The member's index, as written in the keyword path.
    member: &'a str,
    /// The escaped instance location the union applies at (a prefix of the violation's).
    instance: &'a str,
    /// Where the member's own keywords begin in the keyword path, so nested unions are found past it.
    rest: usize,
}

/// What a keyword in a keyword path takes after it, and whether it moves one token into the instance.
enum Argument {
    /// No argument: the next token is a keyword of the subschema.
    Nothing,
    /// A property name or a pattern.
    Name,
    /// An array index.
    Index,
    /// An index when the next token is one (`items` as an array, before 2020-12), else nothing.
    MaybeIndex,
}

/// The applicators a keyword path can pass through; `None` for an assertion (the path's end) or a keyword this
/// rendering does not know, where the search for a union stops.
fn applicator(keyword: &str) -> Option<(Argument, bool)> {
    Some(match keyword {
        "properties" | "patternProperties" => (Argument::Name, true),
        "dependentSchemas" | "dependencies" => (Argument::Name, false),
        "prefixItems" => (Argument::Index, true),
        "allOf" | "anyOf" | "oneOf" => (Argument::Index, false),
        "items" => (Argument::MaybeIndex, true),
        "additionalProperties"
        | "unevaluatedProperties"
        | "additionalItems"
        | "unevaluatedItems"
        | "contains"
        | "propertyNames" => (Argument::Nothing, true),
        "not" | "if" | "then" | "else" | "$ref" | "$dynamicRef" | "$recursiveRef" => {
            (Argument::Nothing, false)
        }
        _ => return None,
    })
}

/// The escaped instance location cut after `depth` tokens.
fn instance_prefix(location: &str, depth: usize) -> &str {
    if depth == 0 {
        return "";
    }
    match location.match_indices('/').nth(depth) {
        Some((end, _)) => &location[..end],
        None => location,
    }
}

/// The first union member that `violation`'s keyword path enters at or after byte `from`.
fn branch(violation: &Violation, from: usize) -> Option<Branch<'_>> {
    let path = violation.schema_location().keyword_path();
    let location = violation.instance_location().as_str();
    // Token starts: each token is preceded by its `/`.
    let mut tokens = path
        .match_indices('/')
        .map(|(at, _)| at + 1)
        .map(|start| (start, path[start..].split('/').next().unwrap_or_default()))
        .peekable();
    let mut depth = 0;
    while let Some((start, keyword)) = tokens.next() {
        let (argument, consumes) = applicator(keyword)?;
        let taken = match argument {
            Argument::Nothing => None,
            Argument::Name => Some(tokens.next()?),
            Argument::Index => Some(
                tokens
                    .next()
                    .filter(|(_, token)| token.parse::<usize>().is_ok())?,
            ),
            Argument::MaybeIndex => tokens
                .next_if(|(_, token)| token.parse::<usize>().is_ok())
                .map(Some)
                .unwrap_or(None),
        };
        if (keyword == "anyOf" || keyword == "oneOf")
            && start >= from
            && let Some((member_start, member)) = taken
        {
            let end = member_start + member.len();
            return Some(Branch {
                union_path: &path[..start + keyword.len()],
                member,
                instance: instance_prefix(location, depth),
                rest: end,
            });
        }
        if consumes {
            depth += 1;
        }
    }
    None
}

/// Appends the lines of `items` (in report order) at `indent`, grouping those that enter a union past byte `from` of
/// their keyword paths; a union that only one member's violations reach is not grouped (there is one way to fix it).
pub(crate) fn lines(items: &[&Violation], from: usize, indent: usize, out: &mut Vec<String>) {
    let branches: Vec<Option<Branch<'_>>> = items.iter().map(|violation| branch(violation, from)).collect();
    // Each union application's violations, in report order, wherever the order put them (a report can hold
    // hundreds of thousands of violations: one pass, not a search per union).
    let mut groups: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
    for (idx, found) in branches.iter().enumerate() {
        if let Some(branch) = found {
            groups
                .entry((branch.union_path, branch.instance))
                .or_default()
                .push(idx);
        }
    }
    // A duplicate reached through another member is listed under each alternative, but only once at one level.
    let mut flat: HashSet<String> = HashSet::new();
    for (idx, violation) in items.iter().enumerate() {
        let Some(union) = branches.get(idx).copied().flatten() else {
            let line = format!("{:indent$}{violation}", "");
            if flat.insert(line.clone()) {
                out.push(line);
            }
            continue;
        };
        let Some(members) = groups.remove(&(union.union_path, union.instance)) else {
            // Written with its union's group already.
            continue;
        };
        let mut alternatives: Vec<&str> = members
            .iter()
            .filter_map(|&m| branches[m].map(|b| b.member))
            .collect();
        alternatives.sort_by_key(|member| (member.parse::<usize>().unwrap_or(usize::MAX), *member));
        alternatives.dedup();
        if alternatives.len() < 2 {
            // Nothing to choose between: the member's lines at this level (its own unions still grouped).
            let rest = branches[idx].map_or(usize::MAX, |b| b.rest);
            let under: Vec<&Violation> = members.iter().map(|&m| items[m]).collect();
            lines(&under, rest, indent, out);
            continue;
        }
        let fragment = oa_pointer::Location::parse(union.instance)
            .map(|location| location.to_fragment())
            .unwrap_or_else(|_| format!("#{}", union.instance));
        let keyword = union.union_path.rsplit('/').next().unwrap_or_default();
        out.push(format!(
            "{:indent$}{fragment}: {keyword}: one of these {} alternatives must hold ({}):",
            "",
            alternatives.len(),
            union.union_path,
        ));
        for member in alternatives {
            out.push(format!("{:width$}alternative {member}:", "", width = indent + 2));
            let under: Vec<usize> = members
                .iter()
                .copied()
                .filter(|&m| branches[m].is_some_and(|b| b.member == member))
                .collect();
            let rest = under
                .first()
                .and_then(|&m| branches[m])
                .map_or(usize::MAX, |b| b.rest);
            let under: Vec<&Violation> = under.iter().map(|&m| items[m]).collect();
            lines(&under, rest, indent + 4, out);
        }
    }
}
