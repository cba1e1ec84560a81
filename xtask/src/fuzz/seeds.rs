//! The fuzz targets' seed corpora, generated from `../shared` (the JSON Schema Test Suite, bench-data, SchemaStore
//! and the spec's conformance fixtures) and a few hostile inputs written here, rather than committed: `cargo xtask fuzz` writes them to
//! `fuzz/seeds/TARGET/` (ignored by git) before each run.

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

mod wire;

pub(crate) use wire::{
    anthropic_responses, event_streams, fixture_texts, gemini_responses, openai_responses, retry_after_values,
};

/// The largest seed kept: libFuzzer mutates small inputs faster, and these are plenty to start from.
const MAX_SEED_BYTES: usize = 64 << 10;

/// The largest SchemaStore schema taken as a compile seed (most of the catalogue is smaller).
const MAX_STORE_SCHEMA_BYTES: u64 = 16 << 10;

/// The longest pattern taken as a regex seed.
const MAX_PATTERN_BYTES: usize = 1 << 10;

/// The schemas of the `schema_validate` target, in the order of its `SCHEMAS` table (its first input byte picks
/// one, twice over: `format` annotating at `2 * index`, asserting at `2 * index + 1`), each with the instances that
/// belong to it: bench-data files, or a SchemaStore name whose valid and invalid documents are seeds.
const VALIDATE_SCHEMAS: &[(&str, Instances)] = &[
    ("metaschema", Instances::SuiteSchemas),
    (
        "fast",
        Instances::Bench(&["fast_valid.json", "fast_invalid.json"]),
    ),
    (
        "citm_catalog",
        Instances::Inline(&[r#"{"areaNames":{"1":"a"},"events":{},"performances":[]}"#]),
    ),
    (
        "geojson",
        Instances::Inline(&[
            r#"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{}}]}"#,
            r#"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]},"properties":null}]}"#,
        ]),
    ),
    ("report-demo", Instances::Bench(&["report-demo.instance.json"])),
    (
        "swagger",
        Instances::Inline(&[
            r#"{"swagger":"2.0","info":{"title":"t","version":"1"},"paths":{"/a":{"get":{"responses":{"200":{"description":"ok"}}}}}}"#,
        ]),
    ),
    ("openhab-5.1", Instances::Store),
    ("yamllint", Instances::Store),
    ("enonic-xp-content-type-8.0.0", Instances::Store),
    ("license-report-config", Instances::Store),
];

/// Where one validate schema's own instances come from.
enum Instances {
    /// Every schema of the suite (instances of the meta-schema).
    SuiteSchemas,
    /// Files of bench-data.
    Bench(&'static [&'static str]),
    /// Small documents written here.
    Inline(&'static [&'static str]),
    /// SchemaStore's valid and invalid documents for the schema of that name.
    Store,
}

/// One test group of the JSON Schema Test Suite: its schema and its instances.
struct Group {
    schema: Value,
    data: Vec<Value>,
}

/// What `../shared` holds for the seeds, read once per `cargo xtask fuzz`.
pub(crate) struct Shared {
    dir: PathBuf,
    suite: Vec<Group>,
}

impl Shared {
    /// Reads the test suite's draft 2020-12 groups; an error naming the path when `../shared` is missing.
    pub(crate) fn new(dir: &Path) -> Result<Self, String> {
        let suite_dir = dir.join("json-schema-test-suite/tests/draft2020-12");
        if !suite_dir.is_dir() {
            return Err(format!(
                "{} is missing: the fuzz seeds (and the schema_validate target's schemas) come from ../shared",
                suite_dir.display()
            ));
        }
        let mut suite = Vec::new();
        for file in json_files(&suite_dir) {
            let Some(Value::Array(groups)) = read_json(&file) else {
                return Err(format!("{}: not a test-suite file", file.display()));
            };
            for mut group in groups {
                let data = match group.get_mut("tests").map(Value::take) {
                    Some(Value::Array(tests)) => tests
                        .into_iter()
                        .filter_map(|mut test| test.get_mut("data").map(Value::take))
                        .collect(),
                    _ => Vec::new(),
                };
                let schema = group.get_mut("schema").map(Value::take).unwrap_or_default();
                suite.push(Group { schema, data });
            }
        }
        Ok(Self {
            dir: dir.to_path_buf(),
            suite,
        })
    }

    fn bench(&self, name: &str) -> Option<Vec<u8>> {
        std::fs::read(self.dir.join("bench-data").join(name)).ok()
    }

    fn store(&self) -> PathBuf {
        self.dir.join("schemastore")
    }
}

/// `schema_bundle`: the `schema_compile` seeds, each behind a byte choosing the default draft (`Draft::ALL[byte %
/// 5]`), once read as 2020-12 and once as draft 7 (the suite's schemas declare no `$schema`).
pub(crate) fn draft_schemas(shared: &Shared) -> Vec<Vec<u8>> {
    schemas(shared)
        .into_iter()
        .flat_map(|schema| {
            [4_u8, 2].map(|draft| {
                let mut seed = vec![draft];
                seed.extend_from_slice(&schema);
                seed
            })
        })
        .collect()
}

/// `schema_compile`: every suite schema with its tests' instances as `examples` (the target validates a schema's
/// `examples`, so the fuzzer mutates schemas and instances together), the bench-data 2020-12 schemas, the smaller
/// SchemaStore schemas (declared as 2020-12, whatever draft they were written for, so that they compile rather
/// than stop at the dialect check), bench-data's per-keyword cases with theirs, and hostile schemas.
pub(crate) fn schemas(shared: &Shared) -> Vec<Vec<u8>> {
    let mut seeds: Vec<Vec<u8>> = shared
        .suite
        .iter()
        .map(|group| compact(&with_examples(&group.schema, group.data.iter())))
        .collect();
    for name in [
        "fast_schema.2020-12.json",
        "citm_catalog_schema.2020-12.json",
        "geojson.2020-12.json",
        "report-demo.schema.json",
        "swagger.2020-12.json",
    ] {
        seeds.extend(shared.bench(name));
    }
    if let Some(Value::Array(cases)) = shared
        .bench("keywords.json")
        .and_then(|b| serde_json::from_slice(&b).ok())
    {
        for case in &cases {
            let instances = ["valid", "invalid"]
                .iter()
                .filter_map(|kind| case.get(kind).and_then(Value::as_array))
                .flatten();
            if let Some(schema) = case.get("schema") {
                seeds.push(compact(&with_examples(schema, instances)));
            }
        }
    }
    for file in json_files(&shared.store().join("schemas")) {
        if std::fs::metadata(&file).is_ok_and(|m| m.len() <= MAX_STORE_SCHEMA_BYTES)
            && let Some(Value::Object(mut schema)) = read_json(&file)
        {
            schema.insert(
                "$schema".to_owned(),
                Value::from("https://json-schema.org/draft/2020-12/schema"),
            );
            seeds.push(compact(&Value::Object(schema)));
        }
    }
    seeds.extend(HOSTILE_SCHEMAS.iter().map(|text| text.as_bytes().to_vec()));
    seeds
}

/// `schema_validate`: a selector byte and an instance. Each schema gets its own instances, and the suite's instances
/// are dealt round the schemas, alternating `format` annotating and asserting.
pub(crate) fn validate_inputs(shared: &Shared) -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    let seed = |index: usize, flip: usize, text: &[u8]| {
        let selector = u8::try_from(2 * index + flip % 2).unwrap_or(0);
        [&[selector][..], text].concat()
    };
    for (index, (name, instances)) in VALIDATE_SCHEMAS.iter().enumerate() {
        let texts: Vec<Vec<u8>> = match instances {
            Instances::SuiteSchemas => shared.suite.iter().map(|group| compact(&group.schema)).collect(),
            Instances::Bench(files) => files.iter().filter_map(|file| shared.bench(file)).collect(),
            Instances::Inline(texts) => texts.iter().map(|text| text.as_bytes().to_vec()).collect(),
            Instances::Store => ["valid", "invalid"]
                .iter()
                .flat_map(|kind| json_files(&shared.store().join(kind).join(name)))
                .filter_map(|file| std::fs::read(file).ok())
                .collect(),
        };
        seeds.extend(texts.iter().enumerate().map(|(n, text)| seed(index, n, text)));
    }
    let data = shared.suite.iter().flat_map(|group| &group.data);
    for (n, instance) in data.enumerate() {
        seeds.push(seed(
            n % VALIDATE_SCHEMAS.len(),
            n / VALIDATE_SCHEMAS.len(),
            &compact(instance),
        ));
    }
    seeds
}

/// `ecma_regex`: every `pattern` and `patternProperties` name in the suite, bench-data and SchemaStore schemas, and
/// the suite's `format: regex` strings, each alone and with a string to match after a NUL byte (the suite's own
/// strings for its patterns, a suite string dealt round for the others), and hostile patterns.
pub(crate) fn patterns(shared: &Shared) -> Vec<Vec<u8>> {
    let strings: Vec<&str> = shared
        .suite
        .iter()
        .flat_map(|group| &group.data)
        .filter_map(Value::as_str)
        .collect();
    let mut seeds = Vec::new();
    let mut pair = |pattern: &str, haystack: &str| {
        if pattern.len() <= MAX_PATTERN_BYTES && !pattern.contains('\0') {
            seeds.push(pattern.as_bytes().to_vec());
            seeds.push(format!("{pattern}\0{haystack}").into_bytes());
        }
    };
    for group in &shared.suite {
        let mut found = Vec::new();
        collect_patterns(&group.schema, &mut found);
        let regex_format = group.schema.get("format").and_then(Value::as_str) == Some("regex");
        for datum in &group.data {
            for pattern in &found {
                match datum {
                    Value::String(text) => pair(pattern, text),
                    Value::Object(members) => members.keys().for_each(|key| pair(pattern, key)),
                    _ => {}
                }
            }
            if regex_format && let Some(text) = datum.as_str() {
                pair(text, "");
            }
        }
    }
    let mut others = Vec::new();
    for name in [
        "citm_catalog_schema.2020-12.json",
        "geojson.2020-12.json",
        "swagger.2020-12.json",
    ] {
        if let Some(schema) = shared
            .bench(name)
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        {
            collect_patterns(&schema, &mut others);
        }
    }
    for file in json_files(&shared.store().join("schemas")) {
        if let Some(schema) = read_json(&file) {
            collect_patterns(&schema, &mut others);
        }
    }
    let others: BTreeSet<String> = others.into_iter().collect();
    for (n, pattern) in others.iter().enumerate() {
        pair(
            pattern,
            strings.get(n % strings.len().max(1)).copied().unwrap_or(""),
        );
    }
    for (pattern, haystack) in HOSTILE_PATTERNS {
        pair(pattern, haystack);
    }
    for pattern in CLASS_PATTERNS {
        for c in EDGE_CHARS {
            pair(pattern, &c.to_string());
        }
    }
    seeds
}

/// `parse_json`: every suite schema and instance printed compactly and indented, the small bench-data documents,
/// and text that is almost JSON.
pub(crate) fn json_texts(shared: &Shared) -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for group in &shared.suite {
        for value in std::iter::once(&group.schema).chain(&group.data) {
            seeds.push(compact(value));
            seeds.extend(serde_json::to_vec_pretty(value).ok());
        }
    }
    for name in [
        "fast_valid.json",
        "fast_invalid.json",
        "patient-example-d.json",
        "patient-example-d_invalid.json",
        "report-demo.instance.json",
        "errors.json",
        "keywords.json",
    ] {
        seeds.extend(shared.bench(name));
    }
    seeds.extend(HOSTILE_JSON.iter().map(|text| text.as_bytes().to_vec()));
    seeds.push(format!("{}{}", "[".repeat(128), "]".repeat(128)).into_bytes());
    seeds.push(format!("{}{}", "[".repeat(129), "]".repeat(129)).into_bytes());
    seeds.push(format!("{}1{}", "{\"a\":".repeat(127), "}".repeat(127)).into_bytes());
    seeds
}

/// `schema_incremental`: `parse_json`'s texts and the suite's instances (compact and indented), each behind a schema
/// selector and a cut seed that vary from seed to seed, and documents written for the target's schemas (an enum in
/// the first field, a long array of rows, a tuple with an extra item, a deep tree).
pub(crate) fn incremental_inputs(shared: &Shared) -> Vec<Vec<u8>> {
    let written = [
        r#"{"severity": "urgent", "title": "a title far too long", "count": 11, "tags": [], "extra": 1}"#,
        r#"{"severity": "low", "title": "t", "tags": ["a", "b", "c", "d"]}"#,
        r#"[{"id": 1, "name": "a"}, {"id": "2"}, {"name": ""}, {"id": 4, "a": 1, "b": 2, "c": 3}, {}, {}]"#,
        r#"[1, "x", null]"#,
        r#"{"value": 1, "children": [{"value": 2, "children": [{"value": "3", "extra": true}]}]}"#,
    ];
    json_texts(shared)
        .into_iter()
        .chain(written.iter().map(|text| text.as_bytes().to_vec()))
        .enumerate()
        .map(|(n, text)| {
            let selector = u8::try_from(n % 256).unwrap_or(0);
            let cuts = u8::try_from(n * 7 % 256).unwrap_or(0);
            [&[selector, cuts][..], &text].concat()
        })
        .collect()
}

/// `pointer`: RFC 6901's examples in both forms, every `$ref` of the suite, the suite's `json-pointer` format
/// strings, and malformed pointers; pairs of them on two lines for the ordering checks.
pub(crate) fn pointers(shared: &Shared) -> Vec<Vec<u8>> {
    let mut found = Vec::new();
    for group in &shared.suite {
        collect_strings_under(&group.schema, "$ref", &mut found);
        if group.schema.get("format").and_then(Value::as_str) == Some("json-pointer") {
            found.extend(group.data.iter().filter_map(Value::as_str).map(str::to_owned));
        }
    }
    let mut seeds: Vec<Vec<u8>> = found.iter().map(|text| text.as_bytes().to_vec()).collect();
    seeds.extend(POINTERS.iter().map(|text| text.as_bytes().to_vec()));
    for pair in POINTERS.windows(2) {
        seeds.push(format!("{}\n{}", pair[0], pair[1]).into_bytes());
    }
    seeds
}

/// Writes `seeds` into `dir` (emptied first), one file each, named by content so that repeats are written once;
/// seeds over [`MAX_SEED_BYTES`] are left out. Returns how many files were written.
pub(crate) fn write(dir: &Path, seeds: Vec<Vec<u8>>) -> Result<usize, String> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let unique: BTreeSet<Vec<u8>> = seeds
        .into_iter()
        .filter(|seed| !seed.is_empty() && seed.len() <= MAX_SEED_BYTES)
        .collect();
    for seed in &unique {
        let path = dir.join(format!("seed-{:016x}", fnv1a(seed)));
        std::fs::write(&path, seed).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(unique.len())
}

/// FNV-1a, 64 bits: a stable file name for a seed's content.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// `schema` with `instances` as its root `examples` (an annotation: validation does not change), unless it is a
/// boolean schema or has examples of its own.
fn with_examples<'a>(schema: &Value, instances: impl Iterator<Item = &'a Value>) -> Value {
    let mut schema = schema.clone();
    if let Value::Object(members) = &mut schema
        && !members.contains_key("examples")
    {
        members.insert("examples".to_owned(), Value::Array(instances.cloned().collect()));
    }
    schema
}

fn compact(value: &Value) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}

fn read_json(path: &Path) -> Option<Value> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// The `.json` files under `dir`, recursively, in name order (so that seeds are the same from run to run).
fn json_files(dir: &Path) -> Vec<PathBuf> {
    files_named(&[dir.to_path_buf()], "json")
}

/// The files ending in `.EXTENSION` under `dirs`, recursively, in name order.
fn files_named(dirs: &[PathBuf], extension: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = dirs.to_vec();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|ext| ext == extension) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Every `pattern` string and `patternProperties` name in `value`, at any depth.
fn collect_patterns(value: &Value, out: &mut Vec<String>) {
    collect_strings_under(value, "pattern", out);
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(members) => {
                if let Some(Value::Object(patterns)) = members.get("patternProperties") {
                    out.extend(patterns.keys().cloned());
                }
                stack.extend(members.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
}

/// Every string that is the value of a member named `name` in `value`, at any depth.
fn collect_strings_under(value: &Value, name: &str, out: &mut Vec<String>) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(members) => {
                if let Some(Value::String(text)) = members.get(name) {
                    out.push(text.clone());
                }
                stack.extend(members.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
}

/// Schemas known to be hard on validators: recursive unions that fan out, reference loops, runaway patterns,
/// extreme numbers, deep nesting.
const HOSTILE_SCHEMAS: &[&str] = &[
    r##"{"$defs":{"node":{"anyOf":[{"type":"array","items":{"$ref":"#/$defs/node"}},{"type":"array","maxItems":3,"items":{"$ref":"#/$defs/node"}}]}},"$ref":"#/$defs/node","examples":[[[[[[[]]]]]]]}"##,
    r##"{"$ref":"#"}"##,
    r##"{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}"##,
    r##"{"$dynamicAnchor":"n","anyOf":[{"type":"string"},{"type":"array","items":{"$dynamicRef":"#n"}}]}"##,
    r#"{"pattern":"(a+)+$","examples":["aaaaaaaaaaaaaaaaaaaaaaaaaaaaab"]}"#,
    r#"{"pattern":"^(?:(?=.*x).)*y","examples":["xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"]}"#,
    r#"{"patternProperties":{"^(a|aa)+$":{"type":"null"}},"additionalProperties":false}"#,
    r#"{"multipleOf":1e-300,"maximum":1e308,"examples":[1e308,12345678901234567890123456789]}"#,
    r#"{"multipleOf":0.0001,"const":1e-400}"#,
    r#"{"minLength":18446744073709551616,"maxItems":1e400}"#,
    r#"{"uniqueItems":true,"examples":[[1,1.0,{"a":[1]},{"a":[1.0]}]]}"#,
    r#"{"unevaluatedProperties":false,"anyOf":[{"properties":{"a":true}},{"patternProperties":{"^b":true}}],"examples":[{"a":1,"b":2,"c":3}]}"#,
    r#"{"unevaluatedItems":false,"prefixItems":[true],"contains":{"const":1},"minContains":0,"maxContains":1}"#,
    r#"{"if":{"required":["a"]},"then":{"required":["b"]},"else":{"not":{}},"dependentSchemas":{"a":{"maxProperties":1}}}"#,
    r#"{"format":"idn-email","propertyNames":{"format":"hostname","maxLength":3}}"#,
    r#"{"$id":"http://example.com/root","$ref":"other#/$defs/x","$defs":{"x":{"$id":"other","$defs":{"x":true}}}}"#,
    r#"{"allOf":[{"allOf":[{"allOf":[{"allOf":[{"allOf":[{"allOf":[{"type":"integer"}]}]}]}]}]}]}"#,
    r#"{"oneOf":[{"type":"integer"},{"type":"number"},{"multipleOf":1}],"enum":[1,1.0,2.5]}"#,
    // Shapes of structured-output schemas: bounded arrays of arrays and of objects, closed objects, tagged unions.
    r#"{"type":"object","properties":{"rows":{"type":"array","maxItems":3,"items":{"type":"array","minItems":2,"maxItems":2,"items":{"type":"number"}}}},"required":["rows"],"additionalProperties":false}"#,
    r#"{"type":"array","items":{"type":"object","properties":{"name":{"type":"string","maxLength":8},"tags":{"type":"array","items":{"enum":["a","b"]},"uniqueItems":true}},"required":["name"],"additionalProperties":false},"maxItems":4}"#,
    r#"{"anyOf":[{"type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number","exclusiveMinimum":0}},"required":["kind","r"]},{"type":"object","properties":{"kind":{"const":"square"},"side":{"type":"integer","minimum":1,"maximum":9}},"required":["kind","side"]}]}"#,
    r#"{"type":"object","properties":{"a":{"type":["string","null"],"pattern":"^[A-Z]{2}-[0-9]{3}$"},"b":{"type":"array","prefixItems":[{"type":"boolean"}],"items":{"type":"string","format":"date"}}},"minProperties":1,"maxProperties":2}"#,
];

/// Patterns (and strings) known to be hard on regex engines or on the translation.
const HOSTILE_PATTERNS: &[(&str, &str)] = &[
    ("(a+)+$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaab"),
    ("(?=.*x)y", "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"),
    ("^(?:(?=.*x).)*y", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
    ("(a|a)*\\1b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
    ("(?<n>a+)\\k<n>", "aaaa"),
    ("(?<=a)b", "ab"),
    ("(?<!a)b", "cb"),
    ("\\p{Lu}+\\P{L}", "ÀB1"),
    ("\\p{Script=Greek}", "α"),
    ("[\\u{1F432}]", "\u{1F432}"),
    ("\\uD83D\\uDC32", "\u{1F432}"),
    ("^ORD-[0-9]{6}$", "ORD-123456"),
    ("f.*o", "f\no"),
    ("A[0-9]{2}Z", "xA12Z"),
    ("^\\w+\\s\\d$", "a\u{a0}1"),
    ("\\bfoo\\B", "foo1"),
    ("a{1000000}", ""),
    ("[^]", "x"),
    ("[]", ""),
    ("[\\w-.]+", "a-."),
    ("\\cJ\\x41\\u0042\\0", "\nAB\0"),
    ("^$", ""),
    ("(?:a?){30}a{30}", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
    ("[\\s\\S]{2,}?", "\u{2028}\u{feff}"),
];

/// One-character patterns over classes whose translations differ by engine (UTF-8 byte sequences for the linear
/// one), each seeded with every [`EDGE_CHARS`] character.
const CLASS_PATTERNS: &[&str] = &[
    "^\\s$",
    "^\\S$",
    "^.$",
    "^[^a]$",
    "^[\\s\\d]$",
    "^[^\\s]$",
    "^[\\W]$",
    "^[\\u0080-\\u07FF\\u{10000}-\\u{10FFFF}]$",
    "^[^\\u0000-\\u007F\\u3000]$",
    "\\b.\\B",
];

/// ECMA-262 WhiteSpace and LineTerminator characters, and the edges of UTF-8's encoded lengths and of the
/// surrogates: where a class written as byte sequences can go wrong.
const EDGE_CHARS: &[char] = &[
    '\t',
    '\n',
    '\u{b}',
    '\u{c}',
    '\r',
    ' ',
    '\u{7f}',
    '\u{80}',
    '\u{a0}',
    '\u{7ff}',
    '\u{800}',
    '\u{1680}',
    '\u{2000}',
    '\u{200a}',
    '\u{200b}',
    '\u{2028}',
    '\u{2029}',
    '\u{202f}',
    '\u{205f}',
    '\u{3000}',
    '\u{d7ff}',
    '\u{e000}',
    '\u{feff}',
    '\u{ffff}',
    '\u{10000}',
    '\u{10ffff}',
];

/// Text that is almost JSON, or JSON that decoders disagree on.
const HOSTILE_JSON: &[&str] = &[
    "[1,]",
    "{\"a\":1,}",
    "// comment\n1",
    "\u{feff}1",
    "NaN",
    "0001",
    "-0",
    "1e999999",
    "-1e-999999",
    "123456789012345678901234567890123456789012345678901234567890",
    "{\"a\":1,\"a\":2}",
    "\"\\ud800\"",
    "\"\\udc00\\ud800\"",
    "\"\u{1}\"",
    "'single'",
    "{\"a\" 1}",
    "[1]\n[2]",
    "\"\\u00e9\\uD83D\\uDC32\"",
    "{\"\":{\"\":{\"\":[]}}}",
    "  \r\n\t null \n",
];

/// Pointers in both forms, well- and ill-formed; neighbours are paired for the ordering checks.
const POINTERS: &[&str] = &[
    "",
    "/foo",
    "/foo/0",
    "/",
    "/a~1b",
    "/c%d",
    "/e^f",
    "/g|h",
    "/i\\j",
    "/k\"l",
    "/ ",
    "/m~0n",
    "#",
    "#/foo",
    "#/foo/0",
    "#/",
    "#/a~1b",
    "#/c%25d",
    "#/e%5Ef",
    "#/g%7Ch",
    "#/i%5Cj",
    "#/k%22l",
    "#/%20",
    "#/m~0n",
    "/foo/10",
    "/foo/2",
    "/foo/-",
    "/foo/01",
    "/9/x",
    "/b",
    "/~",
    "/~2",
    "a",
    "#a",
    "#/%zz",
    "#/%C3",
    "#/%C3%A9",
    "#/%7e0",
    "/é/01/1/3",
    "/10//",
    "/18446744073709551616",
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The names of `VALIDATE_SCHEMAS` must be the fuzz target's `SCHEMAS`, in its order: the selector byte pairs
    /// them by position.
    #[test]
    fn validate_schemas_match_the_fuzz_target() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let target = std::fs::read_to_string(root.join("fuzz/fuzz_targets/schema_validate.rs")).unwrap();
        let table = target
            .split("const SCHEMAS")
            .nth(1)
            .unwrap()
            .split("];")
            .next()
            .unwrap();
        // Each entry opens with `(` and its name's string literal; `include_str!(` opens a path instead.
        let names: Vec<&str> = table
            .match_indices('(')
            .filter(|(at, _)| !table[..*at].ends_with("include_str!"))
            .filter_map(|(at, _)| table[at + 1..].trim_start().strip_prefix('"'))
            .filter_map(|rest| rest.split('"').next())
            .collect();
        let ours: Vec<&str> = VALIDATE_SCHEMAS.iter().map(|(name, _)| *name).collect();
        assert_eq!(names, ours);
    }

    #[test]
    fn seed_files_are_named_by_content_and_deduplicated() {
        let dir = std::env::temp_dir().join(format!("oa-seeds-{}", std::process::id()));
        let written = write(
            &dir,
            vec![b"a".to_vec(), b"a".to_vec(), b"b".to_vec(), Vec::new()],
        )
        .unwrap();
        let files = std::fs::read_dir(&dir).unwrap().count();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!((written, files), (2, 2));
        assert_ne!(fnv1a(b"a"), fnv1a(b"b"));
    }
}
