//! How each node decomposes a container for the validating deserializer (`Validator::deserialize_str`), which
//! checks JSON text while it is read into the caller's type and builds no `Value`.
//!
//! Scalars need no plan: the deserializer hands each one to the yes/no evaluator at its node, which answers
//! exactly as a validation of the whole value would. Containers do: the deserializer never holds a whole object or
//! array, so a node must say, member by member, which node checks each value, and what to check once the container
//! has ended (`required`, the counts). Only the shapes structured output uses are planned (`properties`,
//! `required`, `additionalProperties`, `items`, the count bounds, a lone `$ref`, and a union with `null`); any
//! other keyword that applies to containers leaves the node unplanned, and a container met there sends the caller
//! back to parse and validate.

use super::{Keyword, Shape};
use crate::node::{Body, CompiledSchema, Node, NodeId};
use crate::types::JsonType;

/// Every node's container plan, by node id.
#[derive(Debug)]
pub(crate) struct StreamPlan {
    pub(crate) nodes: Box<[StreamNode]>,
}

/// What a node does with a container.
#[derive(Debug)]
pub(crate) enum StreamNode {
    /// A keyword the plan does not cover applies to containers here.
    Unplanned,
    /// Containers are checked by another node alone (a lone `$ref`; a union of a schema with `{"type": "null"}`,
    /// which no container satisfies on the null side).
    Redirect(NodeId),
    /// Containers are checked member by member.
    Container(Container),
}

/// The container checks of one node (scalar keywords pass containers and are left to the evaluator).
#[derive(Debug, Default)]
pub(crate) struct Container {
    /// Objects: `None` when the node says nothing about members.
    pub(crate) object: Option<ObjectPlan>,
    /// `items` (`None`: any item), `minItems`, `maxItems`.
    pub(crate) items: Option<NodeId>,
    pub(crate) min_items: u64,
    pub(crate) max_items: u64,
    /// `minProperties`, `maxProperties`.
    pub(crate) min_properties: u64,
    pub(crate) max_properties: u64,
    /// `enum` or `const` of scalars only: no container passes.
    pub(crate) rejects: bool,
}

/// `properties`, `required` and `additionalProperties` as one table.
#[derive(Debug, Default)]
pub(crate) struct ObjectPlan {
    /// Every name `properties` or `required` mentions, sorted, with its schema and whether it is required.
    pub(crate) names: Box<[PlannedName]>,
    pub(crate) n_required: usize,
    /// What `additionalProperties` does with members not named.
    pub(crate) others: Others,
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
        if self.names.len() <= 8 {
            return self
                .names
                .iter()
                .position(|known| crate::text::same_name(&known.name, name));
        }
        self.names
            .binary_search_by(|known| crate::text::cmp_names(&known.name, name))
            .ok()
    }
}

impl StreamPlan {
    /// Plans every node; `None` when the schema's dynamic scope matters (a node's verdict then depends on the path
    /// that reached it, which the deserializer does not keep).
    pub(crate) fn build(schema: &CompiledSchema) -> Self {
        let nodes = schema
            .nodes
            .iter()
            .map(|node| {
                if schema.dynamic_scope_matters || node.tracks_evaluated {
                    return StreamNode::Unplanned;
                }
                plan_node(node, &schema.nodes)
            })
            .collect();
        Self { nodes }
    }

    /// The node's plan.
    pub(crate) fn get(&self, id: NodeId) -> &StreamNode {
        self.nodes.get(id as usize).unwrap_or(&StreamNode::Unplanned)
    }
}

fn plan_node(node: &Node, nodes: &[Node]) -> StreamNode {
    let keywords = match &node.body {
        // `true` passes every member (an empty container plan checks nothing); `false` fails on its type, which
        // the deserializer checks before the plan.
        Body::Bool(_) => return StreamNode::Container(Container::unbounded()),
        Body::Keywords(keywords) => keywords,
    };
    match &**keywords {
        [Keyword::Ref(target)] => return StreamNode::Redirect(*target),
        [Keyword::AnyOf(members, _) | Keyword::OneOf(members, _)] => {
            return match &**members {
                [a, b] if is_null_only(nodes, *b) => StreamNode::Redirect(*a),
                [a, b] if is_null_only(nodes, *a) => StreamNode::Redirect(*b),
                _ => StreamNode::Unplanned,
            };
        }
        _ => {}
    }
    let mut container = Container::unbounded();
    for keyword in keywords.iter() {
        match keyword {
            Keyword::Type(_)
            | Keyword::Bound { .. }
            | Keyword::MultipleOf { .. }
            | Keyword::MaxLength(_)
            | Keyword::MinLength(_)
            | Keyword::Pattern { .. }
            | Keyword::Format { .. } => {}
            Keyword::Const(value) if is_scalar(value) => container.rejects = true,
            Keyword::Enum(values) if values.iter().all(is_scalar) => container.rejects = true,
            Keyword::MinItems(limit) => container.min_items = *limit,
            Keyword::MaxItems(limit) => container.max_items = *limit,
            Keyword::MinProperties(limit) => container.min_properties = *limit,
            Keyword::MaxProperties(limit) => container.max_properties = *limit,
            Keyword::Items {
                node: items, skip: 0, ..
            } => container.items = Some(*items),
            Keyword::Shape(shape) => match object_of_shape(shape) {
                Some(object) => container.object = Some(object),
                None => return StreamNode::Unplanned,
            },
            Keyword::Properties { by_name, .. } if container.object.is_none() => {
                container.object = Some(ObjectPlan {
                    names: by_name
                        .iter()
                        .map(|(name, id)| PlannedName {
                            name: name.clone(),
                            node: Some(*id),
                            required: false,
                        })
                        .collect(),
                    n_required: 0,
                    others: Others::Any,
                });
            }
            Keyword::Required(names) if container.object.is_none() => {
                let mut names: Vec<_> = names
                    .iter()
                    .map(|name| PlannedName {
                        name: name.clone(),
                        node: None,
                        required: true,
                    })
                    .collect();
                names.sort_by(|a, b| crate::text::cmp_names(&a.name, &b.name));
                names.dedup_by(|a, b| a.name == b.name);
                container.object = Some(ObjectPlan {
                    n_required: names.len(),
                    names: names.into_boxed_slice(),
                    others: Others::Any,
                });
            }
            Keyword::AdditionalProperties {
                node: others,
                names,
                patterns,
            } if container.object.is_none() && names.is_empty() && patterns.is_empty() => {
                container.object = Some(ObjectPlan {
                    others: others_of(nodes, *others),
                    ..ObjectPlan::default()
                });
            }
            _ => return StreamNode::Unplanned,
        }
    }
    StreamNode::Container(container)
}

impl Container {
    fn unbounded() -> Self {
        Self {
            max_items: u64::MAX,
            max_properties: u64::MAX,
            ..Self::default()
        }
    }
}

fn object_of_shape(shape: &Shape) -> Option<ObjectPlan> {
    if !shape.patterns().is_empty() {
        return None;
    }
    let others = if shape.rejects_others() {
        Others::Reject
    } else {
        shape.other_schema().map_or(Others::Any, Others::Schema)
    };
    Some(ObjectPlan {
        names: shape
            .table()
            .iter()
            .map(|slot| PlannedName {
                name: slot.name().into(),
                node: slot.node,
                required: slot.required,
            })
            .collect(),
        n_required: shape.n_required(),
        others,
    })
}

/// `additionalProperties` as the plan applies it.
fn others_of(nodes: &[Node], id: NodeId) -> Others {
    match nodes.get(id as usize).map(|node| &node.body) {
        Some(Body::Bool(false)) => Others::Reject,
        Some(Body::Bool(true)) => Others::Any,
        _ => Others::Schema(id),
    }
}

fn is_scalar(value: &serde_json::Value) -> bool {
    !(value.is_object() || value.is_array())
}

/// Whether a node is exactly `{"type": "null"}`.
fn is_null_only(nodes: &[Node], id: NodeId) -> bool {
    let Some(Body::Keywords(keywords)) = nodes.get(id as usize).map(|node| &node.body) else {
        return false;
    };
    let [Keyword::Type(types)] = &**keywords else {
        return false;
    };
    let mut null = crate::types::TypeSet::default();
    null.insert(JsonType::Null);
    *types == null
}
