//! Recursion in a schema: the graph of `$ref`s between the root and every referenced subschema, its strongly
//! connected components (Tarjan's, without recursion), and which subschemas sit on a cycle. Anthropic takes no
//! recursion and Gemini none through required properties only, so fitting unrolls those components to a fixed depth.

use std::collections::BTreeMap;

use oa_pointer::Location;
use serde_json::Value;

use super::doc::Doc;

/// The subschemas that sit on a reference cycle, each with the id of its cycle (its strongly connected component).
#[derive(Debug, Default)]
pub(crate) struct Cycles {
    component: BTreeMap<Location, usize>,
}

impl Cycles {
    /// The cycles of the caller's document (references that do not resolve are left to the fit to report).
    pub(crate) fn of(doc: &Doc<'_>) -> Self {
        let mut scopes: Vec<Location> = vec![Location::root()];
        let mut index: BTreeMap<Location, usize> = BTreeMap::from([(Location::root(), 0)]);
        let mut edges: Vec<Vec<usize>> = vec![Vec::new()];
        let mut next = 0;
        while next < scopes.len() {
            let scope = scopes[next].clone();
            let mut targets = Vec::new();
            if let Some(value) = doc.get(&scope) {
                collect_refs(doc, &scope, value, &mut targets);
            }
            for target in targets {
                let id = *index.entry(target.clone()).or_insert_with(|| {
                    scopes.push(target);
                    edges.push(Vec::new());
                    scopes.len() - 1
                });
                edges[next].push(id);
            }
            next += 1;
        }
        let on_cycle = on_cycle(&edges);
        let component = strongly_connected(&edges);
        Self {
            component: scopes
                .into_iter()
                .enumerate()
                .filter(|(id, _)| on_cycle[*id])
                .map(|(id, scope)| (scope, component[id]))
                .collect(),
        }
    }

    /// The cycle `at` sits on, if it sits on one.
    pub(crate) fn component(&self, at: &Location) -> Option<usize> {
        self.component.get(at).copied()
    }

    /// Every subschema on the cycle `component`.
    pub(crate) fn members(&self, component: usize) -> impl Iterator<Item = &Location> {
        self.component
            .iter()
            .filter(move |(_, held)| **held == component)
            .map(|(at, _)| at)
    }
}

/// Every `$ref` target in the schema `value` (at `at`) and its subschemas, without entering `$defs` (definitions are
/// reached through references) or values that are data; a property named like a keyword is a name.
fn collect_refs(doc: &Doc<'_>, at: &Location, value: &Value, out: &mut Vec<Location>) {
    let mut pending: Vec<(Location, &Value)> = vec![(at.clone(), value)];
    while let Some((holder, value)) = pending.pop() {
        let Value::Object(map) = value else { continue };
        for (key, member) in map {
            let here = super::doc::child(&holder, key);
            match key.as_str() {
                "$ref" => {
                    if let Ok(target) = doc.resolve(&holder, member) {
                        out.push(target);
                    }
                }
                "properties" | "patternProperties" | "dependentSchemas" => {
                    for (name, schema) in member.as_object().into_iter().flatten() {
                        pending.push((super::doc::child(&here, name), schema));
                    }
                }
                "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                    for (idx, schema) in member.as_array().into_iter().flatten().enumerate() {
                        pending.push((super::doc::child_index(&holder, key, idx), schema));
                    }
                }
                "items"
                | "additionalProperties"
                | "not"
                | "if"
                | "then"
                | "else"
                | "contains"
                | "propertyNames"
                | "unevaluatedItems"
                | "unevaluatedProperties" => pending.push((here, member)),
                _ => {}
            }
        }
    }
}

/// The strongly connected component of every node (Tarjan's algorithm with an explicit stack).
pub(crate) fn strongly_connected(edges: &[Vec<usize>]) -> Vec<usize> {
    const UNSEEN: usize = usize::MAX;
    let n_nodes = edges.len();
    let mut order = vec![UNSEEN; n_nodes];
    let mut low = vec![0; n_nodes];
    let mut on_stack = vec![false; n_nodes];
    let mut component = vec![UNSEEN; n_nodes];
    let mut stack = Vec::new();
    let mut counter = 0;
    let mut n_components = 0;
    for start in 0..n_nodes {
        if order[start] != UNSEEN {
            continue;
        }
        // (node, index of the next edge to look at)
        let mut work = vec![(start, 0usize)];
        order[start] = counter;
        low[start] = counter;
        counter += 1;
        stack.push(start);
        on_stack[start] = true;
        while let Some(&mut (node, ref mut next_edge)) = work.last_mut() {
            if let Some(&next) = edges[node].get(*next_edge) {
                *next_edge += 1;
                if order[next] == UNSEEN {
                    order[next] = counter;
                    low[next] = counter;
                    counter += 1;
                    stack.push(next);
                    on_stack[next] = true;
                    work.push((next, 0));
                } else if on_stack[next] {
                    low[node] = low[node].min(order[next]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[node]);
            }
            if low[node] == order[node] {
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    component[member] = n_components;
                    if member == node {
                        break;
                    }
                }
                n_components += 1;
            }
        }
    }
    component
}

/// Whether each node lies on a cycle: its component has another node, or it has an edge to itself.
pub(crate) fn on_cycle(edges: &[Vec<usize>]) -> Vec<bool> {
    let component = strongly_connected(edges);
    let mut sizes: BTreeMap<usize, usize> = BTreeMap::new();
    for id in &component {
        *sizes.entry(*id).or_default() += 1;
    }
    (0..edges.len())
        .map(|node| sizes.get(&component[node]).copied().unwrap_or(0) > 1 || edges[node].contains(&node))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn components_and_cycles() {
        let edges = vec![vec![1], vec![2], vec![1, 3], vec![3], vec![]];
        let component = strongly_connected(&edges);
        assert_eq!(component[1], component[2]);
        assert_ne!(component[0], component[1]);
        assert_eq!(on_cycle(&edges), [false, true, true, true, false]);
    }

    #[test]
    fn the_document_graph_finds_root_and_mutual_recursion() {
        let schema = json!({
            "properties": {"tree": {"$ref": "#/$defs/tree"}, "again": {"$ref": "#"}, "leaf": {"$ref": "#/$defs/leaf"}},
            "$defs": {
                "tree": {"properties": {"kids": {"items": {"$ref": "#/$defs/forest"}}}},
                "forest": {"items": {"$ref": "#/$defs/tree"}},
                "leaf": {"const": {"$ref": "#"}}
            }
        });
        let doc = Doc::new(&schema);
        let cycles = Cycles::of(&doc);
        let at = |text: &str| Location::parse(text).unwrap();
        assert!(cycles.component(&at("")).is_some());
        let tree = cycles.component(&at("/$defs/tree")).unwrap();
        assert_eq!(cycles.component(&at("/$defs/forest")), Some(tree));
        assert_ne!(cycles.component(&at("")), Some(tree));
        assert_eq!(cycles.component(&at("/$defs/leaf")), None);
        assert_eq!(cycles.members(tree).count(), 2);
    }

    #[test]
    fn a_long_chain_does_not_recurse() {
        let edges: Vec<Vec<usize>> = (0..200_000).map(|node| vec![(node + 1) % 200_000]).collect();
        assert!(on_cycle(&edges).iter().all(|on| *on));
    }
}
