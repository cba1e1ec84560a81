//! The text rendering of a report: every violation in order, those from inside a failed union grouped under it as
//! its alternatives, so that a reader (or a model being reasked) sees "one of these must hold" rather than a flat
//! list in which nothing says that the lines are alternatives.
//!
//! The grouping is read from each violation's keyword path alone (`/properties/steps/items/oneOf/2/required`): the
//! first `anyOf`/`oneOf` member in it names the union and the alternative, and the applicators before it say how
//! many instance tokens deep the union applies. No violation is dropped or merged: the rendering orders and indents
//! the lines that the flat rendering would print, and repeats under each alternative a line that two members reach
//! (the report holds it once, with the other keyword paths set aside for this).
//!
//! A cap (`ReportOptions::max_violations`) is taken on the same grouping, by whole alternatives: the members closest
//! to valid (fewest violations, then the deepest match) are kept first, and what the cap cut is recorded (a
//! [`Census`] per union it cut) so that the rendering keeps each union's true member count and the closing line can
//! say how many alternatives were left out.

use std::collections::{HashMap, HashSet};

use super::{Violation, ViolationKind};

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

/// The report's lines as the rendering groups them: plain lines, and unions whose members' lines sit under them.
enum Node<'a> {
    /// One violation, by its index in the rendered list.
    Line(usize),
    /// Lines printed at this level, with their own unions grouped (a union only one member reaches).
    Inline(Vec<Node<'a>>),
    /// A union none of whose members holds, with each member's lines.
    Union(Union<'a>),
}

/// One application of a union: where it applies, and its members (in printing order).
struct Union<'a> {
    union_path: &'a str,
    instance: &'a str,
    members: Vec<(&'a str, Vec<Node<'a>>)>,
}

/// What a cap kept of one union it cut: how many members the full report had, and which it kept, closest to valid
/// first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UnionCut {
    n_members: usize,
    shown: Vec<String>,
}

/// Every union a cap cut, by keyword path of the union and escaped instance location it applies at.
pub(crate) type Census = HashMap<(String, String), UnionCut>;

/// What a cap of the rendered list keeps.
pub(crate) struct Kept {
    /// The indices of the lines kept, ascending.
    pub(crate) lines: Vec<usize>,
    /// The unions it cut.
    pub(crate) census: Census,
    /// How many alternatives of the unions still shown were left out.
    pub(crate) n_alternatives_omitted: usize,
}

/// Groups `indices` (positions in `items`, in report order), those entering a union past byte `from` of their
/// keyword paths; a union only one member's violations reach is not grouped (there is one way to fix it) unless a
/// cap cut its other members (`census`).
fn tree<'a>(items: &[&'a Violation], indices: &[usize], from: usize, census: &Census) -> Vec<Node<'a>> {
    let branches: Vec<Option<Branch<'a>>> = indices.iter().map(|&idx| branch(items[idx], from)).collect();
    // Each union application's violations, in report order, wherever the order put them (a report can hold
    // hundreds of thousands of violations: one pass, not a search per union).
    let mut groups: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
    for (at, found) in branches.iter().enumerate() {
        if let Some(branch) = found {
            groups
                .entry((branch.union_path, branch.instance))
                .or_default()
                .push(at);
        }
    }
    let mut nodes = Vec::new();
    for (at, &idx) in indices.iter().enumerate() {
        let Some(union) = branches[at] else {
            nodes.push(Node::Line(idx));
            continue;
        };
        let Some(members) = groups.remove(&(union.union_path, union.instance)) else {
            // Placed with its union's group already.
            continue;
        };
        let mut alternatives: Vec<&str> = members
            .iter()
            .filter_map(|&m| branches[m].map(|b| b.member))
            .collect();
        alternatives.sort_by_key(|member| (member.parse::<usize>().unwrap_or(usize::MAX), *member));
        alternatives.dedup();
        let cut = census.get(&(union.union_path.to_owned(), union.instance.to_owned()));
        if let Some(cut) = cut {
            // A cap's order: closest to valid first.
            alternatives.sort_by_key(|member| cut.shown.iter().position(|shown| shown == member));
        }
        if alternatives.len() < 2 && cut.is_none() {
            // Nothing to choose between: the member's lines at this level (its own unions still grouped).
            let rest = branches[at].map_or(usize::MAX, |b| b.rest);
            let under: Vec<usize> = members.iter().map(|&m| indices[m]).collect();
            nodes.push(Node::Inline(tree(items, &under, rest, census)));
            continue;
        }
        let members = alternatives
            .into_iter()
            .map(|member| {
                let under: Vec<usize> = members
                    .iter()
                    .copied()
                    .filter(|&m| branches[m].is_some_and(|b| b.member == member))
                    .collect();
                let rest = under
                    .first()
                    .and_then(|&m| branches[m])
                    .map_or(usize::MAX, |b| b.rest);
                let under: Vec<usize> = under.iter().map(|&m| indices[m]).collect();
                (member, tree(items, &under, rest, census))
            })
            .collect();
        nodes.push(Node::Union(Union {
            union_path: union.union_path,
            instance: union.instance,
            members,
        }));
    }
    nodes
}

/// Appends the lines of `items` (in report order): every violation, failed unions as headings with their
/// alternatives indented under them, the unions a cap cut with their true member count.
pub(crate) fn lines(items: &[&Violation], census: &Census, out: &mut Vec<String>) {
    let all: Vec<usize> = (0..items.len()).collect();
    render(items, &tree(items, &all, 0, census), 0, census, out);
}

fn render(items: &[&Violation], nodes: &[Node<'_>], indent: usize, census: &Census, out: &mut Vec<String>) {
    // A duplicate reached through another member is listed under each alternative, but only once at one level.
    let mut flat: HashSet<String> = HashSet::new();
    for node in nodes {
        match node {
            Node::Line(idx) => {
                let line = format!("{:indent$}{}", "", items[*idx]);
                if flat.insert(line.clone()) {
                    out.push(line);
                }
            }
            Node::Inline(nodes) => render(items, nodes, indent, census, out),
            Node::Union(union) => {
                let fragment = oa_pointer::Location::parse(union.instance)
                    .map(|location| location.to_fragment())
                    .unwrap_or_else(|_| format!("#{}", union.instance));
                let keyword = union.union_path.rsplit('/').next().unwrap_or_default();
                let cut = census.get(&(union.union_path.to_owned(), union.instance.to_owned()));
                let n_members = cut.map_or(union.members.len(), |cut| cut.n_members);
                let shown = if union.members.len() < n_members {
                    format!(", {} shown, closest to valid first", union.members.len())
                } else {
                    String::new()
                };
                out.push(format!(
                    "{:indent$}{fragment}: {keyword}: one of these {n_members} alternatives must hold ({}){shown}:",
                    "", union.union_path,
                ));
                for (member, nodes) in &union.members {
                    out.push(format!("{:width$}alternative {member}:", "", width = indent + 2));
                    render(items, nodes, indent + 4, census, out);
                }
            }
        }
    }
}

/// Keeps at most `max` lines of `items` (at least one), taking whole alternatives: at each union, its members
/// closest to valid first (fewest lines, then the deepest instance location reached, then the member's index) while
/// they fit; when none fits, the closest one, itself capped.
pub(crate) fn cap(items: &[&Violation], max: usize) -> Kept {
    let all: Vec<usize> = (0..items.len()).collect();
    let nodes = tree(items, &all, 0, &Census::new());
    let mut kept = Kept {
        lines: Vec::new(),
        census: Census::new(),
        n_alternatives_omitted: 0,
    };
    let mut budget = max.max(1);
    select(items, &nodes, &mut budget, &mut kept);
    kept.lines.sort_unstable();
    kept
}

fn select(items: &[&Violation], nodes: &[Node<'_>], budget: &mut usize, kept: &mut Kept) {
    for node in nodes {
        if *budget == 0 {
            return;
        }
        match node {
            Node::Line(idx) => {
                kept.lines.push(*idx);
                *budget -= 1;
            }
            Node::Inline(nodes) => select(items, nodes, budget, kept),
            Node::Union(union) => {
                let mut order: Vec<(Closeness, &(&str, Vec<Node<'_>>))> = union
                    .members
                    .iter()
                    .map(|member| (Closeness::of(items, &member.1), member))
                    .collect();
                // Stable: members of equal standing keep their index order.
                order.sort_by_key(|(closeness, _)| closeness.key());
                let mut shown = Vec::new();
                for (Closeness { cost, .. }, (member, nodes)) in order {
                    if cost <= *budget {
                        collect(nodes, &mut kept.lines);
                        *budget -= cost;
                    } else if shown.is_empty() {
                        select(items, nodes, budget, kept);
                    } else {
                        break;
                    }
                    shown.push((*member).to_owned());
                }
                if shown.len() < union.members.len() {
                    kept.n_alternatives_omitted += union.members.len() - shown.len();
                    kept.census.insert(
                        (union.union_path.to_owned(), union.instance.to_owned()),
                        UnionCut {
                            n_members: union.members.len(),
                            shown,
                        },
                    );
                } else if shown
                    .iter()
                    .zip(&union.members)
                    .any(|(shown, (member, _))| shown != member)
                {
                    // Every member kept, in another order: closest to valid first still.
                    kept.census.insert(
                        (union.union_path.to_owned(), union.instance.to_owned()),
                        UnionCut {
                            n_members: union.members.len(),
                            shown,
                        },
                    );
                }
            }
        }
    }
}

/// How close a union member came to holding: its lines (the cap's cost), the deepest instance location they
/// reach (a member that matched further in is closer), and how many are a `const`/`enum` mismatch (a tag that says
/// another member was meant).
struct Closeness {
    cost: usize,
    depth: usize,
    n_tag_mismatches: usize,
}

impl Closeness {
    fn of(items: &[&Violation], nodes: &[Node<'_>]) -> Self {
        let mut leaves = Vec::new();
        collect(nodes, &mut leaves);
        Self {
            cost: leaves.len(),
            depth: leaves
                .iter()
                .map(|&idx| items[idx].instance_location().depth())
                .max()
                .unwrap_or(0),
            n_tag_mismatches: leaves
                .iter()
                .filter(|&&idx| matches!(items[idx].kind(), ViolationKind::Const | ViolationKind::Enum))
                .count(),
        }
    }

    /// Closest first: fewest lines, then the deepest match, then the fewest tag mismatches.
    fn key(&self) -> (usize, std::cmp::Reverse<usize>, usize) {
        (self.cost, std::cmp::Reverse(self.depth), self.n_tag_mismatches)
    }
}

/// Every line under `nodes`.
fn collect(nodes: &[Node<'_>], out: &mut Vec<usize>) {
    for node in nodes {
        match node {
            Node::Line(idx) => out.push(*idx),
            Node::Inline(nodes) => collect(nodes, out),
            Node::Union(union) => {
                for (_, nodes) in &union.members {
                    collect(nodes, out);
                }
            }
        }
    }
}
