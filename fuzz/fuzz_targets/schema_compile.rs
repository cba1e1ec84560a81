//! Fuzz target: compile arbitrary schemas (JSON text), with and without format assertion; every schema that
//! compiles is then tried on a few instances, its own `const`/`enum`/`default`/`examples` values and itself, and
//! the validator's verdicts are compared (see `oa_fuzz::check_verdicts`). A schema that does not compile must
//! fail with a `SchemaError`, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oa_schema::Validator;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(schema) = oa_schema::parse_json(text) else {
        return;
    };
    for format_assertion in [false, true] {
        match Validator::options()
            .format_assertion(format_assertion)
            .build(&schema)
        {
            Ok(validator) => {
                for instance in oa_fuzz::instances_for(&schema) {
                    oa_fuzz::check_verdicts(&validator, &instance);
                }
            }
            Err(error) => {
                assert!(!error.to_string().is_empty());
            }
        }
    }
});
