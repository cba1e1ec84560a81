//! One subschema as fitting sees it: the conjunction of the schema object, its `allOf` members and the targets of a
//! `$ref` with siblings, merged into one set of keywords where the merge is exact (types intersected, bounds
//! tightened, `required` joined, properties merged under each member's `additionalProperties`). A keyword that cannot
//! merge is kept apart as a conflict, with the conjunct it came from; a `$ref` back into a schema being merged stays
//! a reference. Every keyword keeps the pointer of the schema object it was written in, for the account.

use oa_pointer::Location;
use serde_json::Value;

use super::doc::{self, Doc, Schema};
use super::error::FitError;
use crate::canonical::json_equal;

/// How many schema objects one merge may read before fitting gives up (inlining on hostile input).
const MAX_ABSORBED: usize = 20_000;

/// A merged subschema.
#[derive(Debug, Default)]
pub(crate) struct Frame {
    /// The schema object the frame stands for (its first conjunct).
    pub(crate) host: Location,
    /// Why no instance can satisfy the conjunction, with the conjunct that made it so.
    pub(crate) void: Option<(Location, &'static str)>,
    /// The intersected `type`, if any conjunct had one.
    pub(crate) types: Option<(Vec<&'static str>, Location)>,
    pub(crate) enum_: Option<(Vec<Value>, Location)>,
    pub(crate) const_: Option<(Value, Location)>,
    /// Each conjunct's object keywords.
    pub(crate) objects: Vec<ObjectPart>,
    /// Every `items` schema of the conjunction.
    pub(crate) items: Vec<Location>,
    /// Where `prefixItems` was written and how many positions it has.
    pub(crate) prefix: Option<(Location, usize)>,
    /// The one `anyOf` or `oneOf` of the conjunction.
    pub(crate) union: Option<Union>,
    /// Every other assertion keyword (table-driven), merged.
    pub(crate) simple: Vec<(String, Value, Location)>,
    /// Annotations, the first conjunct's winning.
    pub(crate) annotations: Vec<(String, Value, Location)>,
    /// `$ref`s that point back into a schema being merged (a recursion): kept as references. (target, holder)
    pub(crate) refs: Vec<(Location, Location)>,
    /// Keywords of a later conjunct that could not merge: (keyword, value, conjunct).
    pub(crate) conflicts: Vec<(String, Value, Location)>,
    /// Whether more than one schema object contributed.
    pub(crate) merged: bool,
    /// The conjuncts the frame was built from.
    pub(crate) conjuncts: Vec<Location>,
    /// The schema object whose `anyOf`/`oneOf` is left out (a union distributed over its branches).
    skip_union: Option<Location>,
}

/// The object keywords of one conjunct.
#[derive(Debug)]
pub(crate) struct ObjectPart {
    pub(crate) origin: Location,
    pub(crate) properties: Vec<(String, Location)>,
    pub(crate) required: Vec<String>,
    pub(crate) additional: Additional,
}

/// What a conjunct says about properties it does not declare.
#[derive(Debug, Clone)]
pub(crate) enum Additional {
    Any,
    Forbidden(Location),
    Schema(Location),
}

/// `anyOf` or `oneOf`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UnionKind {
    AnyOf,
    OneOf,
}

impl UnionKind {
    pub(crate) fn keyword(self) -> &'static str {
        match self {
            Self::AnyOf => "anyOf",
            Self::OneOf => "oneOf",
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Union {
    pub(crate) kind: UnionKind,
    /// The schema object holding the keyword; the members are at `origin/<keyword>/<i>`.
    pub(crate) origin: Location,
    pub(crate) len: usize,
}

impl Union {
    pub(crate) fn members(&self) -> impl Iterator<Item = Location> + '_ {
        (0..self.len).map(|idx| doc::child_index(&self.origin, self.kind.keyword(), idx))
    }
}

/// The object keywords of the whole conjunction.
#[derive(Debug)]
pub(crate) struct MergedObject {
    /// Each property with the conjunction of its schemas (empty: any value), in order of first appearance.
    pub(crate) properties: Vec<(String, Vec<Location>)>,
    /// Required names, each with the conjunct that requires it.
    pub(crate) required: Vec<(String, Location)>,
    pub(crate) additional: MergedAdditional,
    /// A required name some conjunct forbids: no object satisfies the conjunction.
    pub(crate) impossible: Option<(String, Location)>,
}

#[derive(Debug)]
pub(crate) enum MergedAdditional {
    Any,
    Forbidden(Location),
    Schemas(Vec<Location>),
}

/// Keywords merged by keeping the larger value.
const LOWER_BOUNDS: [&str; 6] = [
    "minimum",
    "exclusiveMinimum",
    "minLength",
    "minItems",
    "minProperties",
    "minContains",
];
/// Keywords merged by keeping the smaller value.
const UPPER_BOUNDS: [&str; 6] = [
    "maximum",
    "exclusiveMaximum",
    "maxLength",
    "maxItems",
    "maxProperties",
    "maxContains",
];
/// Annotations a frame carries to the fitted schema (each mapping decides which it sends).
pub(crate) const ANNOTATIONS: [&str; 3] = ["title", "description", "default"];

impl Frame {
    /// The frame of the conjunction of the schemas at `conjuncts` (the first is the host).
    pub(crate) fn build(doc: &Doc<'_>, conjuncts: &[Location], budget: &mut usize) -> Result<Self, FitError> {
        Self::build_without_union(doc, conjuncts, None, budget)
    }

    /// As [`build`](Self::build), leaving out the `anyOf`/`oneOf` written at `skip_union` (the frame of one branch of
    /// a union distributed over the keywords beside it).
    pub(crate) fn build_without_union(
        doc: &Doc<'_>,
        conjuncts: &[Location],
        skip_union: Option<&Location>,
        budget: &mut usize,
    ) -> Result<Self, FitError> {
        let mut frame = Self {
            host: conjuncts.first().cloned().unwrap_or_default(),
            conjuncts: conjuncts.to_vec(),
            skip_union: skip_union.cloned(),
            ..Self::default()
        };
        let mut stack = Vec::new();
        let mut n_objects = 0;
        for conjunct in conjuncts {
            frame.absorb(doc, conjunct, &mut stack, budget, &mut n_objects)?;
        }
        frame.merged = n_objects > 1;
        Ok(frame)
    }

    /// Merges the schema at `at` (and what it references or lists under `allOf`) into the frame.
    fn absorb(
        &mut self,
        doc: &Doc<'_>,
        at: &Location,
        stack: &mut Vec<Location>,
        budget: &mut usize,
        n_objects: &mut usize,
    ) -> Result<(), FitError> {
        *budget += 1;
        if *budget > MAX_ABSORBED {
            return Err(FitError::TooLarge { max: MAX_ABSORBED });
        }
        if stack.len() > super::MAX_DEPTH {
            return Err(FitError::TooDeep {
                pointer: at.clone(),
                max: super::MAX_DEPTH,
            });
        }
        let map = match doc.schema(at)? {
            Schema::Bool(true) => return Ok(()),
            Schema::Bool(false) => {
                self.void.get_or_insert((at.clone(), "a `false` schema"));
                return Ok(());
            }
            Schema::Object(map) => map,
        };
        *n_objects += 1;
        stack.push(at.clone());
        let mut object = ObjectPart {
            origin: at.clone(),
            properties: Vec::new(),
            required: Vec::new(),
            additional: Additional::Any,
        };
        let mut has_object = false;
        for (keyword, value) in map {
            match keyword.as_str() {
                "$ref" => {
                    let target = doc.resolve(at, value)?;
                    if stack.contains(&target) {
                        self.refs.push((target, at.clone()));
                    } else {
                        self.absorb(doc, &target, stack, budget, n_objects)?;
                    }
                }
                "allOf" => {
                    let n_members = value.as_array().map_or(0, Vec::len);
                    for idx in 0..n_members {
                        self.absorb(doc, &doc::child_index(at, "allOf", idx), stack, budget, n_objects)?;
                    }
                }
                "type" => self.merge_type(value, at),
                "enum" => self.merge_enum(value, at),
                "const" => self.merge_const(value, at),
                "properties" => {
                    has_object = true;
                    if let Some(properties) = value.as_object() {
                        let holder = doc::child(at, "properties");
                        object.properties = properties
                            .keys()
                            .map(|name| (name.clone(), doc::child(&holder, name)))
                            .collect();
                    }
                }
                "required" => {
                    has_object = true;
                    object.required = value
                        .as_array()
                        .map(|names| {
                            names
                                .iter()
                                .filter_map(Value::as_str)
                                .map(str::to_owned)
                                .collect()
                        })
                        .unwrap_or_default();
                }
                "additionalProperties" => {
                    has_object = true;
                    object.additional = match value {
                        Value::Bool(true) => Additional::Any,
                        Value::Bool(false) => Additional::Forbidden(at.clone()),
                        _ => Additional::Schema(doc::child(at, "additionalProperties")),
                    };
                }
                "items" => {
                    if let Some((prefix_at, _)) = &self.prefix
                        && prefix_at != at
                    {
                        self.conflicts.push((keyword.clone(), value.clone(), at.clone()));
                    } else {
                        self.items.push(doc::child(at, "items"));
                    }
                }
                "prefixItems" => {
                    let others = self.prefix.is_some()
                        || self.items.iter().any(|items| items.parent().as_ref() != Some(at));
                    if others {
                        self.conflicts.push((keyword.clone(), value.clone(), at.clone()));
                    } else {
                        self.prefix = Some((at.clone(), value.as_array().map_or(0, Vec::len)));
                    }
                }
                "anyOf" | "oneOf" if self.skip_union.as_ref() == Some(at) => {}
                "anyOf" | "oneOf" => {
                    let kind = if keyword == "anyOf" {
                        UnionKind::AnyOf
                    } else {
                        UnionKind::OneOf
                    };
                    if self.union.is_some() {
                        self.conflicts.push((keyword.clone(), value.clone(), at.clone()));
                    } else {
                        self.union = Some(Union {
                            kind,
                            origin: at.clone(),
                            len: value.as_array().map_or(0, Vec::len),
                        });
                    }
                }
                other if doc::SIMPLE.contains(&other) => self.merge_simple(other, value, at),
                other
                    if ANNOTATIONS.contains(&other)
                        && !self.annotations.iter().any(|(name, _, _)| name == other) =>
                {
                    self.annotations
                        .push((other.to_owned(), value.clone(), at.clone()));
                }
                _ => {}
            }
        }
        if has_object {
            self.objects.push(object);
        }
        stack.pop();
        Ok(())
    }

    fn merge_type(&mut self, value: &Value, at: &Location) {
        let Some(names) = doc::type_names(value) else {
            return;
        };
        let named: Vec<&'static str> = TYPE_NAMES
            .iter()
            .copied()
            .filter(|name| names.contains(name))
            .collect();
        let merged = match self.types.take() {
            None => named,
            Some((held, _)) => TYPE_NAMES
                .iter()
                .copied()
                .filter(|name| {
                    let in_both =
                        |set: &[&str]| set.contains(name) || (*name == "integer" && set.contains(&"number"));
                    in_both(&held) && in_both(&named)
                })
                .collect(),
        };
        if merged.is_empty() {
            self.void
                .get_or_insert((at.clone(), "`type`s with nothing in common"));
        }
        self.types = Some((merged, at.clone()));
    }

    fn merge_enum(&mut self, value: &Value, at: &Location) {
        let values = value.as_array().cloned().unwrap_or_default();
        let merged = match self.enum_.take() {
            None => values,
            Some((held, _)) => held
                .into_iter()
                .filter(|held| values.iter().any(|value| json_equal(held, value)))
                .collect(),
        };
        if merged.is_empty() {
            self.void
                .get_or_insert((at.clone(), "`enum`s with nothing in common"));
        }
        self.enum_ = Some((merged, at.clone()));
    }

    fn merge_const(&mut self, value: &Value, at: &Location) {
        if let Some((held, _)) = &self.const_
            && !json_equal(held, value)
        {
            self.void.get_or_insert((at.clone(), "different `const`s"));
            return;
        }
        self.const_.get_or_insert((value.clone(), at.clone()));
    }

    fn merge_simple(&mut self, keyword: &str, value: &Value, at: &Location) {
        let Some(held) = self.simple.iter_mut().find(|(name, _, _)| name == keyword) else {
            self.simple.push((keyword.to_owned(), value.clone(), at.clone()));
            return;
        };
        if json_equal(&held.1, value) {
            return;
        }
        let tighter = match (held.1.as_f64(), value.as_f64()) {
            (Some(old), Some(new)) if LOWER_BOUNDS.contains(&keyword) => Some(new > old),
            (Some(old), Some(new)) if UPPER_BOUNDS.contains(&keyword) => Some(new < old),
            _ if keyword == "uniqueItems" => Some(value == &Value::Bool(true)),
            _ => None,
        };
        match tighter {
            Some(true) => *held = (keyword.to_owned(), value.clone(), at.clone()),
            Some(false) => {}
            None => self
                .conflicts
                .push((keyword.to_owned(), value.clone(), at.clone())),
        }
    }

    /// Whether any conjunct has object keywords.
    pub(crate) fn has_object_keywords(&self) -> bool {
        !self.objects.is_empty()
            || self
                .simple
                .iter()
                .any(|(name, _, _)| OBJECT_KEYWORDS.contains(&name.as_str()))
    }

    /// Whether any conjunct has array keywords.
    pub(crate) fn has_array_keywords(&self) -> bool {
        !self.items.is_empty()
            || self.prefix.is_some()
            || self
                .simple
                .iter()
                .any(|(name, _, _)| ARRAY_KEYWORDS.contains(&name.as_str()))
    }

    /// Whether any conjunct has string keywords.
    pub(crate) fn has_string_keywords(&self) -> bool {
        self.simple
            .iter()
            .any(|(name, _, _)| STRING_KEYWORDS.contains(&name.as_str()))
    }

    /// Whether any conjunct has number keywords.
    pub(crate) fn has_number_keywords(&self) -> bool {
        self.simple
            .iter()
            .any(|(name, _, _)| NUMBER_KEYWORDS.contains(&name.as_str()))
    }

    /// The object keywords of the conjunction, merged exactly.
    pub(crate) fn merged_object(&self) -> MergedObject {
        let mut names: Vec<String> = Vec::new();
        for part in &self.objects {
            for (name, _) in &part.properties {
                if !names.contains(name) {
                    names.push(name.clone());
                }
            }
        }
        let mut required: Vec<(String, Location)> = Vec::new();
        for part in &self.objects {
            for name in &part.required {
                if !required.iter().any(|(held, _)| held == name) {
                    required.push((name.clone(), part.origin.clone()));
                }
                if !names.contains(name) {
                    names.push(name.clone());
                }
            }
        }
        let mut properties = Vec::new();
        let mut impossible = None;
        for name in names {
            let mut schemas = Vec::new();
            let mut forbidden = None;
            for part in &self.objects {
                match part.properties.iter().find(|(held, _)| *held == name) {
                    Some((_, at)) => schemas.push(at.clone()),
                    None => match &part.additional {
                        Additional::Any => {}
                        Additional::Schema(at) => schemas.push(at.clone()),
                        Additional::Forbidden(at) => forbidden = Some(at.clone()),
                    },
                }
            }
            match forbidden {
                Some(at) => {
                    if required.iter().any(|(held, _)| *held == name) && impossible.is_none() {
                        impossible = Some((name, at));
                    }
                }
                None => properties.push((name, schemas)),
            }
        }
        let mut additional = MergedAdditional::Any;
        for part in &self.objects {
            match (&part.additional, &mut additional) {
                (Additional::Forbidden(at), _) => additional = MergedAdditional::Forbidden(at.clone()),
                (Additional::Schema(at), MergedAdditional::Any) => {
                    additional = MergedAdditional::Schemas(vec![at.clone()]);
                }
                (Additional::Schema(at), MergedAdditional::Schemas(held)) => held.push(at.clone()),
                _ => {}
            }
        }
        required.retain(|(name, _)| properties.iter().any(|(held, _)| held == name));
        MergedObject {
            properties,
            required,
            additional,
            impossible,
        }
    }
}

/// The JSON Schema type names, in the order fitting writes them.
pub(crate) const TYPE_NAMES: [&str; 7] = [
    "object", "array", "string", "number", "integer", "boolean", "null",
];
const OBJECT_KEYWORDS: [&str; 7] = [
    "minProperties",
    "maxProperties",
    "patternProperties",
    "propertyNames",
    "dependentRequired",
    "dependentSchemas",
    "unevaluatedProperties",
];
const ARRAY_KEYWORDS: [&str; 7] = [
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
    "unevaluatedItems",
];
const STRING_KEYWORDS: [&str; 4] = ["minLength", "maxLength", "pattern", "format"];
const NUMBER_KEYWORDS: [&str; 5] = [
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
];

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn frame(schema: &Value) -> Frame {
        let doc = Doc::new(schema);
        Frame::build(&doc, &[Location::root()], &mut 0).unwrap()
    }

    #[test]
    fn all_of_members_merge_exactly() {
        let schema = json!({
            "allOf": [
                {"type": ["integer", "string"], "minimum": 1},
                {"type": "number", "minimum": 3, "maximum": 9},
                {"$ref": "#/$defs/max"}
            ],
            "$defs": {"max": {"maximum": 5}}
        });
        let frame = frame(&schema);
        assert!(frame.merged);
        assert_eq!(frame.types.as_ref().unwrap().0, vec!["integer"]);
        let bound = |name: &str| {
            frame
                .simple
                .iter()
                .find(|(held, _, _)| held == name)
                .map(|(_, value, at)| (value.clone(), at.to_string()))
        };
        assert_eq!(bound("minimum"), Some((json!(3), "/allOf/1".to_owned())));
        assert_eq!(bound("maximum"), Some((json!(5), "/$defs/max".to_owned())));
        assert!(frame.conflicts.is_empty());
    }

    #[test]
    fn properties_merge_under_each_members_additional_properties() {
        let schema = json!({
            "allOf": [
                {"properties": {"a": {"type": "string"}, "b": {}}, "required": ["a"], "additionalProperties": false},
                {"properties": {"b": {"type": "integer"}, "c": {}}, "additionalProperties": {"minLength": 1}}
            ]
        });
        let object = frame(&schema).merged_object();
        let names: Vec<_> = object
            .properties
            .iter()
            .map(|(name, at)| (name.as_str(), at.len()))
            .collect();
        // `c` is forbidden by the first member; `a` also meets the second member's additionalProperties.
        assert_eq!(names, [("a", 2), ("b", 2)]);
        assert!(matches!(object.additional, MergedAdditional::Forbidden(_)));
        assert!(object.impossible.is_none());
        let impossible =
            json!({"allOf": [{"properties": {}, "additionalProperties": false}, {"required": ["x"]}]});
        assert_eq!(
            frame(&impossible)
                .merged_object()
                .impossible
                .map(|(name, _)| name),
            Some("x".to_owned())
        );
    }

    #[test]
    fn what_cannot_merge_is_a_conflict_and_recursion_stays_a_reference() {
        let schema = json!({
            "$defs": {"node": {"allOf": [{"$ref": "#/$defs/node"}], "pattern": "^a", "description": "n"}},
            "allOf": [{"$ref": "#/$defs/node"}, {"pattern": "^b", "anyOf": [{}]}, {"oneOf": [{}]}]
        });
        let frame = frame(&schema);
        let conflicts: Vec<_> = frame
            .conflicts
            .iter()
            .map(|(name, _, at)| (name.as_str(), at.to_string()))
            .collect();
        assert_eq!(
            conflicts,
            [
                ("pattern", "/allOf/1".to_owned()),
                ("oneOf", "/allOf/2".to_owned())
            ]
        );
        assert_eq!(frame.refs.len(), 1);
        assert_eq!(frame.refs[0].0.as_str(), "/$defs/node");
        assert_eq!(frame.annotations[0].1, json!("n"));
    }

    #[test]
    fn contradictions_make_the_frame_void() {
        for schema in [
            json!({"allOf": [{"type": "string"}, {"type": "integer"}]}),
            json!({"allOf": [{"const": 1}, {"const": 2}]}),
            json!({"allOf": [{"enum": [1, 2]}, {"enum": [3]}]}),
            json!({"allOf": [true, false]}),
        ] {
            assert!(frame(&schema).void.is_some(), "{schema}");
        }
        assert!(
            frame(&json!({"allOf": [{"enum": [1, 2.0]}, {"enum": [2]}]}))
                .void
                .is_none()
        );
    }
}
