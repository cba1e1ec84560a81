//! Every fixture case of ../shared and of this crate's own fixtures, each run as its own test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use libtest_mimic::{Arguments, Failed, Trial};
use oa_conformance::{Fixture, discover};

fn main() {
    let args = Arguments::from_args();
    let shared = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/openarmature-spec/spec");
    let mut trials = Vec::new();
    for capability in ["llm-provider", "observability"] {
        let dir = shared.join(capability).join("conformance");
        let files = discover(&dir).unwrap_or_else(|error| panic!("{error}: ../shared is required"));
        for file in files {
            let name = format!(
                "load/{}/{}",
                file.capability,
                file.path.file_stem().unwrap().to_string_lossy()
            );
            trials.push(Trial::test(name, move || {
                Fixture::load(&file.path, &file.capability)
                    .map(|_| ())
                    .map_err(|e| Failed::from(e.to_string()))
            }));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
