//! Fuzz target: fit arbitrary schemas (JSON text) to every mapping. A schema fitting refuses must fail with a
//! `FitError`, never a panic, unbounded recursion or time; the fit of a valid schema must compile and pass the
//! scripted vendor of its mapping (oa-testkit's documented rules), and mapping an answer back
//! (the schema's own examples and a few fixed answers) against the caller's compiled schema must not panic and must
//! leave an answer the caller's schema accepts unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oa_provider::Mapping;
use oa_provider::fit::fit;
use oa_schema::Validator;
use oa_testkit::vendor::Vendor;
use serde_json::json;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(schema) = oa_schema::parse_json(text) else {
        return;
    };
    // Fitting takes a valid schema (the call compiles it first); an invalid one must still never panic.
    let caller = Validator::new(&schema).ok();
    for mapping in Mapping::ALL {
        match fit(&schema, mapping) {
            Ok(fitted) => {
                let Some(caller) = &caller else { continue };
                if let Err(error) = Validator::new(fitted.schema()) {
                    panic!(
                        "{mapping}: the fitted schema does not compile: {error}\n{}",
                        fitted.schema()
                    );
                }
                let mut answers = oa_fuzz::instances_for(&schema);
                answers.extend([json!({}), json!({"a": null}), json!(null)]);
                for answer in answers {
                    let mut mapped = answer.clone();
                    let edits = fitted.map_back().apply(&mut mapped, caller);
                    if caller.is_valid(&answer) {
                        assert!(
                            edits.is_empty() && mapped == answer,
                            "{mapping}: an accepted answer changed"
                        );
                    }
                }
            }
            Err(error) => assert!(!error.to_string().is_empty()),
        }
    }
});
