//! How each node decomposes a container for the validating deserializer (`Validator::deserialize_str`), which
//! checks JSON text while it is read into the caller's type and builds no `Value`.
//!
//! Scalars need no plan: the deserializer hands each one to the yes/no evaluator at its node, which answers
//! exactly as a validation of the whole value would. Containers do: the deserializer never holds a whole object or
//! array, so a node must say, member by member, which node checks each value, and what to check once the container
//! has ended (`required`, the counts). Planned: `properties`, `required`, `patternProperties`,
//! `additionalProperties` (merged into one table, as a fused shape merges them), `prefixItems` and `items` (or an
//! array-form `items` and `additionalItems`), the count bounds, a lone `$ref`, and a union with `null`. A member
//! whose name meets several of them (its property and a pattern, two patterns) has several nodes: its value is read
//! whole and checked at each. Any other keyword that applies to containers leaves the node unplanned, and a
//! container met there is read whole into a value and checked as a scalar is.

use crate::ecma_regex::EcmaRegex;
use crate::keywords::{Keyword, enum_, properties, unions};
use crate::node::{Body, CompiledSchema, Node, NodeId};

/// Every node's container plan, by node id.
#[derive(Debug)]
pub(crate) struct TypedPlan {
    pub(crate) nodes: Box<[TypedNode]>,
}

/// What a node does with a container.
#[derive(Debug)]
pub(crate) enum TypedNode {
    /// A keyword the plan does not cover applies to containers here.
    Unplanned,
    /// Containers are checked by another node alone (a lone `$ref`; a union of a schema with `{"type": "null"}`,
    /// which no container satisfies on the null side).
    Redirect(NodeId),
    /// Containers are checked member by member.
    Container(Container),
    /// Containers are checked member by member by several plans at once: the node's own keywords' and each
    /// `allOf` member's (see [`TypedPlan::parts`]).
    All(AllPlan),
}

/// A node with `allOf`: its own keywords' plan, and the members.
#[derive(Debug)]
pub(crate) struct AllPlan {
    pub(crate) own: Container,
    pub(crate) members: Box<[NodeId]>,
}

/// One plan a container meets at a node with `allOf`: node `id`'s `container`, entered from that node through
/// `way` (each node entered, with its keyword path step where it is not the node's own: `/$ref`).
#[derive(Debug)]
pub(crate) struct Part<'s> {
    pub(crate) id: NodeId,
    pub(crate) container: &'s Container,
    pub(crate) way: Vec<(NodeId, Option<&'static str>)>,
}

/// What [`TypedPlan::parts`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Parts {
    /// Every part has a plan (written out).
    Planned,
    /// A part refuses every container of the kind (its type, an `enum` of scalars).
    Refused,
    /// A part has no plan (or there are too many).
    Unplanned,
}

/// The most parts (and steps to reach them) one container may have.
const MAX_PARTS: usize = 64;

/// The container checks of one node (scalar keywords pass containers and are left to the evaluator).
#[derive(Debug, Default)]
pub(crate) struct Container {
    /// Objects: `None` when the node says nothing about members.
    pub(crate) object: Option<ObjectPlan>,
    /// `prefixItems` (or an array-form `items`): the first items' nodes, one each.
    pub(crate) prefix: Box<[NodeId]>,
    /// `items` (or `additionalItems`): the node of every item after the prefix (`None`: any item); `minItems`,
    /// `maxItems`.
    pub(crate) items: Option<NodeId>,
    pub(crate) min_items: u64,
    pub(crate) max_items: u64,
    /// `minProperties`, `maxProperties`.
    pub(crate) min_properties: u64,
    pub(crate) max_properties: u64,
    /// `enum` or `const` of scalars only: no container passes.
    pub(crate) rejects: bool,
}

/// `properties`, `required`, `patternProperties` and `additionalProperties` as one table.
#[derive(Debug, Default)]
pub(crate) struct ObjectPlan {
    /// Every name `properties` or `required` mentions, sorted, with its schema and whether it is required.
    pub(crate) names: Box<[PlannedName]>,
    pub(crate) n_required: usize,
    /// `patternProperties`: every pattern a member's name matches applies its schema too, and such a member is
    /// not "additional".
    pub(crate) patterns: Box<[(EcmaRegex, NodeId)]>,
    /// What `additionalProperties` does with members neither named nor matched.
    pub(crate) others: Others,
    /// Each name of [`names`](Self::names) as its length and [`short_key`](crate::text::short_key), in the same
    /// order, where there are more than [`SCANNED_NAMES_MAX`] names, at most [`KEYED_NAMES_MAX`], each of at most
    /// 16 bytes (empty otherwise): a member's name is then found by a scan of a few compares a name, with no
    /// pointer followed, where a binary search called a comparison per step.
    pub(crate) keys: Box<[(usize, (u64, u64))]>,
}

/// The most names [`ObjectPlan::find`] compares one by one as they are (as cheap as their keys for so few).
const SCANNED_NAMES_MAX: usize = 8;

/// The most names [`ObjectPlan::find`] scans by their keys (past it, a binary search costs less).
const KEYED_NAMES_MAX: usize = 32;

/// What a member is, told from its name by [`ObjectPlan::member_nodes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Member {
    /// Its value is checked by the nodes written out (none: any value).
    Checked,
    /// `additionalProperties: false` rejects it (its value is not looked at).
    Rejected,
    /// A pattern could not be matched within its budget: the collecting evaluator reports that, the plan does not.
    Budget,
}

/// `additionalProperties`, as the plan applies it.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) enum Others {
    /// Absent or `true`.
    #[default]
    Any,
    /// Checked by a schema.
    Schema(NodeId),
    /// `false`.
    Reject,
}

/// One name of an [`ObjectPlan`].
#[derive(Debug)]
pub(crate) struct PlannedName {
    pub(crate) name: Box<str>,
    /// Its `properties` schema, if any (else `additionalProperties` applies to it).
    pub(crate) node: Option<NodeId>,
    pub(crate) required: bool,
}

impl ObjectPlan {
    /// The position of `name` in [`names`](Self::names).
    pub(crate) fn find(&self, name: &str) -> Option<usize> {
        // A few names (the usual object): compared lengths first, no call per name.
        if self.names.len() <= SCANNED_NAMES_MAX {
            return self
                .names
                .iter()
                .position(|known| crate::text::same_name(&known.name, name));
        }
        if !self.keys.is_empty() {
            // Every name short: one that is not has no match; else a name matches where its length and key do.
            let key = (name.len(), crate::text::short_key(name)?);
            return self.keys.iter().position(|known| *known == key);
        }
        self.names
            .binary_search_by(|known| crate::text::cmp_names(&known.name, name))
            .ok()
    }
}

impl ObjectPlan {
    /// Sorts [`names`](Self::names) (as `find` searches them) and lays out their [`keys`](Self::keys).
    pub(crate) fn sort_names(&mut self) {
        self.names
            .sort_by(|a, b| crate::text::cmp_names(&a.name, &b.name));
        let keys: Option<Box<[_]>> = self
            .names
            .iter()
            .map(|planned| crate::text::short_key(&planned.name).map(|key| (planned.name.len(), key)))
            .collect();
        self.keys = keys
            .filter(|keys| keys.len() > SCANNED_NAMES_MAX && keys.len() <= KEYED_NAMES_MAX)
            .unwrap_or_default();
    }

    /// The nodes that check the value of member `name` (at `slot` of [`names`](Self::names), if there), added
    /// to `nodes` in the collecting evaluator's order: its `properties` schema, each matching pattern's, or
    /// `additionalProperties`' when neither applies (a name only `required` mentions is not declared).
    pub(crate) fn member_nodes(&self, slot: Option<usize>, name: &str, nodes: &mut Vec<NodeId>) -> Member {
        let property = slot
            .and_then(|slot| self.names.get(slot))
            .and_then(|planned| planned.node);
        nodes.extend(property);
        let mut patterned = false;
        for (regex, id) in &self.patterns {
            match regex.is_match(name) {
                Ok(true) => {
                    patterned = true;
                    nodes.push(*id);
                }
                Ok(false) => {}
                Err(_) => return Member::Budget,
            }
        }
        if property.is_none() && !patterned {
            match self.others {
                Others::Any => {}
                Others::Schema(id) => nodes.push(id),
                Others::Reject => return Member::Rejected,
            }
        }
        Member::Checked
    }
}

impl TypedPlan {
    /// Plans every node; `None` when the schema's dynamic scope matters (a node's verdict then depends on the path
    /// that reached it, which the deserializer does not keep).
    pub(crate) fn build(schema: &CompiledSchema) -> Self {
        let nodes = schema
            .nodes
            .iter()
            .map(|node| {
                if schema.dynamic_scope_matters || node.tracks_evaluated {
                    return TypedNode::Unplanned;
                }
                plan_node(node, &schema.nodes)
            })
            .collect();
        Self { nodes }
    }

    /// The node's plan.
    pub(crate) fn get(&self, id: NodeId) -> &TypedNode {
        self.nodes.get(id as usize).unwrap_or(&TypedNode::Unplanned)
    }

    /// Every plan a container of `kind` meets at node `id` (one with `allOf`), written to `parts`: the node's own,
    /// then each member's after its lone `$ref`s (and unions with `null` where `follow_unions`: the verdict is the
    /// target's, the report is not), members with `allOf` of their own flattened.
    pub(crate) fn parts<'s>(
        &'s self,
        schema: &CompiledSchema,
        id: NodeId,
        kind: usize,
        follow_unions: bool,
        parts: &mut Vec<Part<'s>>,
    ) -> Parts {
        parts.clear();
        let mut work = vec![(id, Vec::new())];
        let mut steps = 0;
        while let Some((mut at, mut way)) = work.pop() {
            loop {
                steps += 1;
                if steps > MAX_PARTS || parts.len() >= MAX_PARTS {
                    return Parts::Unplanned;
                }
                if !admits(schema, at, kind) {
                    return Parts::Refused;
                }
                match self.get(at) {
                    TypedNode::Unplanned => return Parts::Unplanned,
                    TypedNode::Redirect(target) => {
                        let lone_ref = schema.nodes.get(at as usize).is_some_and(is_lone_ref);
                        if !lone_ref && !follow_unions {
                            return Parts::Unplanned;
                        }
                        way.push((*target, lone_ref.then_some("/$ref")));
                        at = *target;
                    }
                    TypedNode::Container(container) => {
                        if container.rejects {
                            return Parts::Refused;
                        }
                        parts.push(Part {
                            id: at,
                            container,
                            way,
                        });
                        break;
                    }
                    TypedNode::All(all) => {
                        if all.own.rejects {
                            return Parts::Refused;
                        }
                        // Members last in, first out: pushed in reverse, they come out in order.
                        for member in all.members.iter().rev() {
                            let mut member_way = way.clone();
                            member_way.push((*member, None));
                            work.push((*member, member_way));
                        }
                        parts.push(Part {
                            id: at,
                            container: &all.own,
                            way,
                        });
                        break;
                    }
                }
            }
        }
        Parts::Planned
    }
}

fn plan_node(node: &Node, nodes: &[Node]) -> TypedNode {
    let keywords = match &node.body {
        // `true` passes every member (an empty container plan checks nothing); `false` fails on its type, which
        // the deserializer checks before the plan.
        Body::Bool(_) => return TypedNode::Container(Container::unbounded()),
        Body::Keywords(keywords) => keywords,
    };
    match &**keywords {
        [Keyword::Ref(target)] => return TypedNode::Redirect(*target),
        [Keyword::AnyOf(members, _) | Keyword::OneOf(members, _)] => {
            return unions::typed_redirect(members, nodes).map_or(TypedNode::Unplanned, TypedNode::Redirect);
        }
        _ => {}
    }
    let mut container = Container::unbounded();
    // The object keywords, merged into one table at the end (as a fused shape merges them).
    let mut object = ObjectParts::default();
    let mut items_skip = 0;
    let mut all_of = None;
    for keyword in keywords.iter() {
        match keyword {
            // Checks of scalars: every container passes them.
            Keyword::Type(_)
            | Keyword::Bound { .. }
            | Keyword::MultipleOf { .. }
            | Keyword::MaxLength(_)
            | Keyword::MinLength(_)
            | Keyword::Pattern { .. }
            | Keyword::Format { .. } => {}
            Keyword::Const(value) if enum_::typed_rejects_containers(std::slice::from_ref(value)) => {
                container.rejects = true;
            }
            Keyword::Enum(values) if enum_::typed_rejects_containers(values) => container.rejects = true,
            Keyword::MinItems(limit) => container.min_items = *limit,
            Keyword::MaxItems(limit) => container.max_items = *limit,
            Keyword::MinProperties(limit) => container.min_properties = *limit,
            Keyword::MaxProperties(limit) => container.max_properties = *limit,
            Keyword::PrefixItems(ids) if container.prefix.is_empty() => container.prefix = ids.clone(),
            Keyword::AllOf(members) if all_of.is_none() => all_of = Some(members),
            Keyword::Items {
                node: items, skip, ..
            } if container.items.is_none() => {
                container.items = Some(*items);
                items_skip = *skip;
            }
            Keyword::Shape(shape) if !object.any() => object.shape = Some(shape.typed_object()),
            Keyword::Properties { by_name, .. } if object.properties.is_none() && object.shape.is_none() => {
                object.properties = Some(by_name);
            }
            Keyword::Required(names) if object.required.is_none() && object.shape.is_none() => {
                object.required = Some(names);
            }
            Keyword::PatternProperties(patterns) if object.patterns.is_none() && object.shape.is_none() => {
                object.patterns = Some(patterns);
            }
            Keyword::AdditionalProperties { node: others, .. }
                if object.others.is_none() && object.shape.is_none() =>
            {
                // Its sibling names and patterns are those of `properties` and `patternProperties`.
                object.others = Some(*others);
            }
            // Anything else that applies to containers (or a keyword twice): not planned.
            Keyword::Const(_)
            | Keyword::Enum(_)
            | Keyword::Items { .. }
            | Keyword::PrefixItems(_)
            | Keyword::Shape(_)
            | Keyword::Properties { .. }
            | Keyword::Required(_)
            | Keyword::PatternProperties(_)
            | Keyword::AdditionalProperties { .. }
            | Keyword::Ref(_)
            | Keyword::DynamicRef { .. }
            | Keyword::UniqueItems
            | Keyword::Contains { .. }
            | Keyword::DependentRequired(_)
            | Keyword::PropertyNames(_)
            | Keyword::DependentSchemas(_)
            | Keyword::Dependencies { .. }
            | Keyword::AllOf(_)
            | Keyword::AnyOf(..)
            | Keyword::OneOf(..)
            | Keyword::Not(_)
            | Keyword::If { .. }
            | Keyword::UnevaluatedProperties(_)
            | Keyword::UnevaluatedItems(_)
            | Keyword::Unresolved { .. } => return TypedNode::Unplanned,
        }
    }
    if container.items.is_some() && items_skip != container.prefix.len() {
        // `items` after a prefix of another length (not what `compile` builds): not planned.
        return TypedNode::Unplanned;
    }
    container.object = object.plan(nodes);
    if let Some(object) = &mut container.object {
        // `properties` keeps its names in two groups (the cheap schemas first, see
        // `compile::order_properties_cheap_first`), each sorted: `ObjectPlan::find` searches one sorted table.
        object.sort_names();
    }
    if let Some(members) = all_of {
        return TypedNode::All(AllPlan {
            own: container,
            members: members.clone(),
        });
    }
    TypedNode::Container(container)
}

/// A node's object keywords, as met.
#[derive(Default)]
struct ObjectParts<'k> {
    /// A fused shape (`properties`, `required`, `additionalProperties`, `patternProperties`).
    shape: Option<ObjectPlan>,
    properties: Option<&'k [(Box<str>, NodeId)]>,
    required: Option<&'k [Box<str>]>,
    patterns: Option<&'k [(EcmaRegex, NodeId)]>,
    others: Option<NodeId>,
}

impl ObjectParts<'_> {
    fn any(&self) -> bool {
        self.shape.is_some()
            || self.properties.is_some()
            || self.required.is_some()
            || self.patterns.is_some()
            || self.others.is_some()
    }

    /// The one table (`None`: the node says nothing of members).
    fn plan(self, nodes: &[Node]) -> Option<ObjectPlan> {
        if let Some(shape) = self.shape {
            return Some(shape);
        }
        if !self.any() {
            return None;
        }
        let mut plan = self
            .properties
            .map_or_else(ObjectPlan::default, properties::typed_object);
        for name in self.required.unwrap_or_default() {
            match plan.names.iter_mut().find(|planned| *planned.name == **name) {
                Some(planned) => planned.required = true,
                None => {
                    let mut names = std::mem::take(&mut plan.names).into_vec();
                    names.push(PlannedName {
                        name: name.clone(),
                        node: None,
                        required: true,
                    });
                    plan.names = names.into_boxed_slice();
                }
            }
        }
        // `required` may repeat a name: each counts once.
        plan.n_required = plan.names.iter().filter(|planned| planned.required).count();
        plan.patterns = self.patterns.unwrap_or_default().into();
        if let Some(others) = self.others {
            plan.others = properties::typed_others(nodes, others);
        }
        Some(plan)
    }
}

impl Container {
    pub(crate) fn unbounded() -> Self {
        Self {
            max_items: u64::MAX,
            max_properties: u64::MAX,
            ..Self::default()
        }
    }
}

/// Whether node `id` lets some instance of `kind` (object or array) pass its type (containers it refuses are
/// not planned: they fail there).
pub(crate) fn admits(schema: &CompiledSchema, id: NodeId, kind: usize) -> bool {
    schema
        .plans
        .get(id as usize)
        .is_some_and(|plan| plan.always || plan.types.admits_kind(kind))
}

/// Whether a node the plan redirects is a lone `$ref` (its report is the target's, reached by a frame `/$ref`),
/// rather than a union with `null` (whose report needs the value).
pub(crate) fn is_lone_ref(node: &Node) -> bool {
    matches!(&node.body, Body::Keywords(keywords) if matches!(&**keywords, [Keyword::Ref(_)]))
}

/// A planned container's own checks, as the collecting pass evaluates one that fails (see `typed/collect.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OwnCheck {
    /// `minItems`, `maxItems`.
    ItemCounts,
    /// `minProperties`, `maxProperties`.
    PropertyCounts,
    /// `additionalProperties` (a rejected name).
    Others,
}

/// The keywords of `node` that carry `check`, looking into a fused shape's originals.
pub(crate) fn own_keywords(node: &Node, check: OwnCheck) -> impl Iterator<Item = &Keyword> {
    let keywords: &[Keyword] = match &node.body {
        Body::Keywords(keywords) => keywords,
        Body::Bool(_) => &[],
    };
    keywords
        .iter()
        .flat_map(|keyword| match keyword {
            Keyword::Shape(shape) => &shape.originals[..],
            other => std::slice::from_ref(other),
        })
        .filter(move |keyword| match check {
            OwnCheck::ItemCounts => matches!(keyword, Keyword::MinItems(_) | Keyword::MaxItems(_)),
            OwnCheck::PropertyCounts => {
                matches!(keyword, Keyword::MinProperties(_) | Keyword::MaxProperties(_))
            }
            OwnCheck::Others => matches!(keyword, Keyword::AdditionalProperties { .. }),
        })
}

#[cfg(test)]
mod tests {
    use super::{ObjectPlan, PlannedName};

    fn plan(names: &[String]) -> ObjectPlan {
        let mut plan = ObjectPlan {
            names: names
                .iter()
                .map(|name| PlannedName {
                    name: name.as_str().into(),
                    node: None,
                    required: false,
                })
                .collect(),
            ..ObjectPlan::default()
        };
        plan.sort_names();
        plan
    }

    /// `find` gives each name's position and nothing for any other name, whether the names are compared one by one
    /// (up to 8), by their keys (up to 32, some of the same length and ends) or searched (more).
    #[test]
    fn find_gives_each_name_its_position_and_others_none() {
        let stems = [
            "a",
            "ab",
            "ba",
            "abc",
            "acc",
            "x",
            "",
            "é",
            "a~b",
            "quantity",
            "unit_price",
            "taxable",
        ];
        for n in [0, 1, 5, 8, 9, 20, 32, 33, 70] {
            let names: Vec<String> = (0..n)
                .map(|i| format!("{}{}", stems[i % stems.len()], "z".repeat(i / stems.len())))
                .collect();
            let plan = plan(&names);
            assert_eq!(plan.keys.is_empty(), n <= 8 || n > 32, "{n}");
            for (slot, planned) in plan.names.iter().enumerate() {
                assert_eq!(plan.find(&planned.name), Some(slot), "{n}: {}", planned.name);
            }
            for other in [
                "b",
                "abd",
                "ab ",
                "zz",
                "unit_prices",
                "quantitY",
                "é~",
                "a~c",
                "zzzzzzzz",
            ] {
                if !names.iter().any(|name| name == other) {
                    assert_eq!(plan.find(other), None, "{n}: {other}");
                }
            }
        }
    }

    /// A name longer than a key: no keys, the names searched.
    #[test]
    fn a_long_name_leaves_the_names_searched() {
        let mut names: Vec<String> = (0..12).map(|i| format!("name{i}")).collect();
        names.push("a name longer than sixteen bytes".to_owned());
        let plan = plan(&names);
        assert!(plan.keys.is_empty());
        for (slot, planned) in plan.names.iter().enumerate() {
            assert_eq!(plan.find(&planned.name), Some(slot), "{}", planned.name);
        }
        assert_eq!(plan.find("name12"), None);
        assert_eq!(plan.find("a name longer than sixteen byteS"), None);
    }
}
