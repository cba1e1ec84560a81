//! Fuzz target: every schema that compiles (each draft as the default, unresolved references deferred) is bundled
//! (`Validator::bundle`); the bundle must compile as draft 2020-12 on its own and, unless it reports something
//! inexpressible, give the original's verdict on a few instances (its own `const`/`enum`/`default`/`examples`
//! values and itself, see `oa_fuzz::instances_for`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use oa_schema::{Draft, SchemaError, Validator};

fuzz_target!(|data: &[u8]| {
    let Some((draft, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let Ok(schema) = oa_schema::parse_json(text) else {
        return;
    };
    let draft = Draft::ALL[usize::from(*draft) % Draft::ALL.len()];
    let Ok(original) = Validator::options()
        .default_draft(draft)
        .defer_unresolved_references(true)
        .build(&schema)
    else {
        return;
    };
    let bundle = original.bundle();
    let rebuilt = match Validator::new(bundle.schema()) {
        Ok(rebuilt) => rebuilt,
        // Embedding under `/$defs/NAME` may take a schema nested at the limit past it.
        Err(SchemaError::TooDeep { .. }) => return,
        Err(error) => panic!("the bundle does not compile: {error}\n{}", bundle.schema()),
    };
    if !bundle.inexpressible().is_empty() {
        return;
    }
    for instance in oa_fuzz::instances_for(&schema) {
        assert_eq!(
            original.is_valid(&instance),
            rebuilt.is_valid(&instance),
            "{instance} against {schema}\nbundle {}",
            bundle.schema()
        );
    }
});
