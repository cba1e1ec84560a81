//! A union's discriminator: a property that the members of an `anyOf`/`oneOf` pin with `const` or `enum`, found
//! at compile time, by which both evaluators skip the members that cannot hold and the opt-in report view sets
//! them aside.

use super::Keyword;
use super::names::NameIndex;
use crate::equal::json_equal;
use crate::node::{Body, NodeId};
use serde_json::{Map, Value};

/// String pins with their member indices, sorted by pin.
type StringPins = Box<[(Box<str>, usize)]>;

/// A property that members of a union pin with `const` or `enum`, found at compile time. A member whose pinned
/// values do not include the instance's cannot be satisfied, so the yes/no pass skips it without evaluating it;
/// reports still evaluate every member the 0126 rule selects.
///
/// Two properties may be kept: the one the opt-in report view sets members aside by (`property`: the one most
/// members pin), and the one the evaluators skip members by (`skip_property`: the one whose pins tell the most
/// members apart). They differ when every member pins a property to the same values (solidaritySchema's
/// `platform`, next to the `rule` that tells its six members apart).
#[derive(Debug)]
pub(crate) struct Discriminator {
    /// The pinned property of the report view.
    pub(crate) property: Box<str>,
    /// Each member's pinned values, by member index; `None` for a member that does not pin it.
    pins: Box<[Option<Box<[Value]>>]>,
    /// The pinned property members are skipped by.
    skip_property: Box<str>,
    /// Each member's pinned values of `skip_property`.
    skip_pins: Box<[Option<Box<[Value]>>]>,
    /// When every member pins the property to strings: `(pin, member index)` sorted, so that a string tag finds
    /// its candidate members without comparing with every member (FHIR's 146-member `oneOf`).
    by_string: Option<StringPins>,
    /// Where each pin's members lie in `by_string`: one hash lookup instead of a binary search of string
    /// comparisons. Empty when `tag_index` holds them.
    by_tag: foldhash::HashMap<Box<str>, (usize, usize)>,
    /// The same as `by_tag` for eight pins or more: a lookup without SipHash-like mixing of the whole tag (FHIR's
    /// `resourceType` cost 130 instructions through the hash map, about half through the index).
    tag_index: Option<NameIndex<(usize, usize)>>,
    /// Whether objects iterate their members sorted by name (see [`member`]).
    sorted: bool,
}

impl Discriminator {
    /// The instance's value of the property members are skipped by, looked up once per union evaluation.
    pub(crate) fn tag<'v>(&self, instance: &'v Value) -> Option<&'v Value> {
        match instance {
            Value::Object(object) => member(object, &self.skip_property, self.sorted),
            _ => None,
        }
    }

    /// The instance's value of the report view's property.
    pub(crate) fn view_tag<'v>(&self, instance: &'v Value) -> Option<&'v Value> {
        match instance {
            Value::Object(object) => object.get(self.property.as_ref()),
            _ => None,
        }
    }

    /// The only members that can be satisfied by an instance whose pinned property is `tag`, in member order;
    /// `None` when the members must be walked one by one.
    pub(crate) fn string_candidates(&self, tag: Option<&Value>) -> Option<&[(Box<str>, usize)]> {
        let (Some(by_string), Some(Value::String(tag))) = (self.by_string.as_deref(), tag) else {
            return None;
        };
        let (start, end) = self.range_of(tag);
        Some(by_string.get(start..end).unwrap_or(&[]))
    }

    /// Where the members pinned to `tag` lie in `by_string`. Out of line: inlined, the index's probe was laid out
    /// 45 instructions dearer in one build.
    #[inline(never)]
    fn range_of(&self, tag: &str) -> (usize, usize) {
        match &self.tag_index {
            Some(index) => index.get(tag).copied(),
            None => self.by_tag.get(tag).copied(),
        }
        .unwrap_or((0, 0))
    }

    /// Whether member `member_idx` certainly fails on an instance whose skipping property is `tag` (see
    /// [`Self::tag`]).
    pub(crate) fn excludes(&self, member_idx: usize, tag: Option<&Value>) -> bool {
        excluded(&self.skip_pins, member_idx, tag)
    }

    /// [`Self::excludes`] for the report view's property (see [`Self::view_tag`]).
    pub(crate) fn view_excludes(&self, member_idx: usize, tag: Option<&Value>) -> bool {
        excluded(&self.pins, member_idx, tag)
    }
}

/// The most members [`member`] walks over; larger objects are searched.
const WALKED: usize = 16;

/// `object.get(name)`. A small object whose members iterate sorted is walked, comparing lengths first, from the
/// end nearer the name's first letter: the B-tree's search calls `memcmp` for every key it passes (ten calls, 300
/// instructions, to find FHIR's `resourceType` among a Patient's 13 members), where most keys differ from the name
/// in length.
#[inline]
fn member<'v>(object: &'v Map<String, Value>, name: &str, sorted: bool) -> Option<&'v Value> {
    if !sorted || object.len() > WALKED {
        return object.get(name);
    }
    let first = name.as_bytes().first().copied().unwrap_or(0);
    let is_name = |key: &String| key.len() == name.len() && key == name;
    // Sorted: past a key whose first byte is beyond the name's, no later key (earlier, walking back) is the name.
    if first < LATE {
        object
            .iter()
            .take_while(|(key, _)| key.as_bytes().first().is_none_or(|byte| *byte <= first))
            .find(|(key, _)| is_name(key))
    } else {
        object
            .iter()
            .rev()
            .take_while(|(key, _)| key.as_bytes().first().is_some_and(|byte| *byte >= first))
            .find(|(key, _)| is_name(key))
    }
    .map(|(_, value)| value)
}

/// Names starting at this byte or later (`n` to `z`, and non-ASCII) are looked for from the end of a sorted object.
const LATE: u8 = b'n';

/// Whether member `member_idx`, pinned to `pins[member_idx]`, certainly fails on an instance whose pinned property
/// is `tag`.
fn excluded(pins: &[Option<Box<[Value]>>], member_idx: usize, tag: Option<&Value>) -> bool {
    let (Some(Some(pins)), Some(value)) = (pins.get(member_idx), tag) else {
        return false;
    };
    !pins.iter().any(|pin| match (pin, value) {
        (Value::String(pin), Value::String(value)) => pin == value,
        _ => json_equal(pin, value),
    })
}

/// Whether every member pins `property` to one string, no two the same.
fn tells_all_apart(pins: &[Vec<(&str, &[Value])>], property: &str) -> bool {
    let mut strings = Vec::with_capacity(pins.len());
    for member in pins {
        match member.iter().find(|(name, _)| *name == property) {
            Some((_, [Value::String(pin)])) => strings.push(pin.as_str()),
            _ => return false,
        }
    }
    strings.sort_unstable();
    strings.windows(2).all(|pair| pair[0] != pair[1])
}

/// How many (member, value) pairs a property's pins exclude: for each member that pins it, the values some other
/// member pins that this one does not. Zero when every member pins the same values (nothing is told apart).
fn exclusions(pins: &[Vec<(&str, &[Value])>], property: &str) -> usize {
    let pinned: Vec<&[Value]> = pins
        .iter()
        .filter_map(|member| {
            member
                .iter()
                .find(|(name, _)| *name == property)
                .map(|(_, values)| *values)
        })
        .collect();
    let mut values: Vec<&Value> = Vec::new();
    for value in pinned.iter().flat_map(|values| values.iter()) {
        if !values.iter().any(|known| json_equal(known, value)) {
            values.push(value);
        }
    }
    pinned
        .iter()
        .map(|own| {
            values
                .iter()
                .filter(|value| !own.iter().any(|pin| json_equal(pin, value)))
                .count()
        })
        .sum()
}

/// How many `$ref`/`allOf` hops to follow when looking for the properties a member pins.
const MAX_PIN_HOPS: u32 = 4;

/// The most pins and pinned values (together, over every member) for which [`find_discriminator`] compares pinned
/// values pairwise to choose the property members are skipped by.
const MAX_COUNTED_PINS: usize = 4096;

/// Builds the discriminator of a union, if at least two members pin the same property.
pub(crate) fn find_discriminator(nodes: &[crate::node::Node], members: &[NodeId]) -> Option<Discriminator> {
    let pins: Vec<Vec<(&str, &[Value])>> = members.iter().map(|id| pins_of(nodes, *id, 0)).collect();
    // Members pinning each name, counted once per member: one pass, not a scan of every member per pin (a union
    // of many members pinning many properties would make that quadratic in the schema's size).
    let mut n_members_of: foldhash::HashMap<&str, usize> = foldhash::HashMap::default();
    for member in &pins {
        let mut names: Vec<&str> = member.iter().map(|(name, _)| *name).collect();
        names.sort_unstable();
        names.dedup();
        for name in names {
            *n_members_of.entry(name).or_insert(0) += 1;
        }
    }
    let n_members = |name: &str| n_members_of.get(name).copied().unwrap_or(0);
    let mut best: Option<(&str, usize)> = None;
    for (name, _) in pins.iter().flatten() {
        let n_members = n_members(name);
        if n_members >= 2 && best.is_none_or(|(_, n_best)| n_members > n_best) {
            best = Some((name, n_members));
        }
    }
    let (property, _) = best?;
    // The property to skip by: the view's, unless another that several members pin excludes more. A view's
    // property that every member pins to a string of its own tells every member apart already (FHIR's
    // `resourceType` over 146 members): kept without counting. Counting compares pinned values pairwise, so it is
    // done only for unions with at most `MAX_COUNTED_PINS` pins and pinned values in all (else the view's
    // property is kept: members are skipped as before this count existed).
    let n_pinned: usize = pins.iter().flatten().map(|(_, values)| 1 + values.len()).sum();
    let mut skip_property = property;
    let mut most = if n_pinned > MAX_COUNTED_PINS || tells_all_apart(&pins, property) {
        usize::MAX
    } else {
        exclusions(&pins, property)
    };
    let mut names: Vec<&str> = pins.iter().flatten().map(|(name, _)| *name).collect();
    names.sort_unstable();
    names.dedup();
    if most == usize::MAX {
        names.clear();
    }
    for name in names {
        if n_members(name) >= 2 && name != property {
            let excluded = exclusions(&pins, name);
            if excluded > most {
                (skip_property, most) = (name, excluded);
            }
        }
    }
    let pins_of_property = |property: &str| {
        pins.iter()
            .map(|member| {
                member
                    .iter()
                    .find(|(name, _)| *name == property)
                    .map(|(_, values)| Box::<[Value]>::from(*values))
            })
            .collect::<Box<[Option<Box<[Value]>>]>>()
    };
    let skip_pins = pins_of_property(skip_property);
    let pins = pins_of_property(property);
    let by_string = string_pins(&skip_pins);
    let mut by_tag = foldhash::HashMap::<Box<str>, (usize, usize)>::default();
    for (position, (pin, _)) in by_string
        .iter()
        .flat_map(|by_string| by_string.iter())
        .enumerate()
    {
        by_tag
            .entry(pin.clone())
            .and_modify(|(_, end)| *end = position + 1)
            .or_insert((position, position + 1));
    }
    let tag_index = NameIndex::new(by_tag.iter().map(|(pin, range)| (pin.as_ref(), *range)));
    if tag_index.is_some() {
        by_tag = foldhash::HashMap::default();
    }
    Some(Discriminator {
        property: property.into(),
        pins,
        skip_property: skip_property.into(),
        skip_pins,
        by_string,
        by_tag,
        tag_index,
        sorted: crate::node::maps_iterate_sorted(),
    })
}

/// Every member's string pins as `(pin, member index)`, sorted by pin (members with the same pin in member order,
/// each once); `None` unless every member pins the property to strings only.
fn string_pins(pins: &[Option<Box<[Value]>>]) -> Option<StringPins> {
    let mut by_string: Vec<(Box<str>, usize)> = Vec::new();
    for (member_idx, values) in pins.iter().enumerate() {
        for value in values.as_deref()? {
            let Value::String(pin) = value else {
                return None;
            };
            by_string.push((Box::from(pin.as_str()), member_idx));
        }
    }
    // Stable: members with the same pin stay in member order; an `enum` listing a value twice counts once.
    by_string.sort_by(|a, b| a.0.cmp(&b.0));
    by_string.dedup();
    Some(by_string.into_boxed_slice())
}

/// The properties a node pins to a few values: `properties: {p: {const: v}}` or `{p: {enum: [v, w]}}`, directly
/// or through `$ref`/`allOf`.
fn pins_of(nodes: &[crate::node::Node], id: NodeId, hops: u32) -> Vec<(&str, &[Value])> {
    let mut found = Vec::new();
    let Some(Body::Keywords(keywords)) = nodes.get(id as usize).map(|node| &node.body) else {
        return found;
    };
    for keyword in keywords.iter().flat_map(Keyword::parts) {
        match keyword {
            Keyword::Properties { entries, .. } => {
                for (name, child) in entries.iter() {
                    let Some(Body::Keywords(pins)) = nodes.get(*child as usize).map(|node| &node.body) else {
                        continue;
                    };
                    for pin in pins.iter() {
                        match pin {
                            Keyword::Const(value) => found.push((name.as_ref(), std::slice::from_ref(value))),
                            Keyword::Enum(options) => found.push((name.as_ref(), options)),
                            _ => {}
                        }
                    }
                }
            }
            Keyword::Ref(target) if hops < MAX_PIN_HOPS => found.extend(pins_of(nodes, *target, hops + 1)),
            Keyword::AllOf(members) if hops < MAX_PIN_HOPS => {
                for member in members.iter() {
                    found.extend(pins_of(nodes, *member, hops + 1));
                }
            }
            _ => {}
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Map, Value};

    proptest! {
        /// The walk finds what `get` finds, from either end, for names on both sides of the split letter, the
        /// empty name and non-ASCII, in objects below and above the walked size.
        #[test]
        fn member_finds_what_get_finds(
            keys in prop::collection::btree_set("[ahnrzé]{0,3}", 0..20),
            name in "[ahnrzé]{0,3}",
        ) {
            let object: Map<String, Value> =
                keys.into_iter().enumerate().map(|(position, key)| (key, Value::from(position))).collect();
            let sorted = crate::node::maps_iterate_sorted();
            prop_assert_eq!(super::member(&object, &name, sorted), object.get(&name));
        }
    }

    /// A union of ten members told apart by a string tag finds its member through the tag index: both evaluators
    /// agree with the verdicts for every tag, an unknown one, a tag of another type and a missing one.
    #[test]
    fn a_union_of_many_tags_finds_its_member() {
        use crate::validator::Validator;
        use serde_json::json;
        let members: Vec<Value> = (0..10)
            .map(|n| {
                json!({ "properties": { "kind": { "const": format!("k{n}") }, "v": { "maximum": n } },
                        "required": ["kind"] })
            })
            .collect();
        for keyword in ["oneOf", "anyOf"] {
            let validator = Validator::new(&json!({ keyword: members })).unwrap();
            for n in 0..10 {
                for (v, valid) in [(n, true), (n + 1, false)] {
                    let instance = json!({ "kind": format!("k{n}"), "v": v, "zz": 1 });
                    assert_eq!(validator.is_valid(&instance), valid, "{keyword} {instance}");
                    assert_eq!(
                        validator.validate(&instance).is_ok(),
                        valid,
                        "{keyword} {instance}"
                    );
                }
            }
            for instance in [json!({ "kind": "k10" }), json!({ "kind": 1 }), json!({ "v": 0 })] {
                assert!(!validator.is_valid(&instance), "{keyword} {instance}");
                assert!(validator.validate(&instance).is_err(), "{keyword} {instance}");
            }
        }
    }
}
