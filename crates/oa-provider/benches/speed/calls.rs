//! A counting mode for instruction profiles (callgrind): `OA_SPEED_CALLS=<workload>/<client>/<n>` makes `n` calls
//! of one prepared caller at concurrency 1 after the usual pre-check, then exits without criterion. Run it twice
//! with two values of `n` under `valgrind --tool=callgrind`; the difference of the two totals divided by the
//! difference of `n` is the instructions per call, the setup and pre-check cancelling out (`callgrind.sh` does
//! this). The server thread is counted too: its share is the same for every client of a workload.

use std::sync::Arc;

use crate::Callers;

/// Runs the calls `spec` names; `Err` names what it could not read.
// Never inlined: `callgrind.sh --main` counts while the calling thread is inside this function, found by its name.
#[inline(never)]
pub(crate) fn run(runtime: &tokio::runtime::Runtime, callers: &Callers, spec: &str) -> Result<(), String> {
    let mut parts = spec.split('/');
    let (Some(workload), Some(client), Some(n), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(format!(
            "OA_SPEED_CALLS={spec:?}: expected <workload>/<client>/<n>"
        ));
    };
    let n: usize = n
        .parse()
        .map_err(|_| format!("OA_SPEED_CALLS: {n:?} is not a count"))?;
    let caller = callers
        .iter()
        .find(|((each_workload, each_client), _)| {
            each_workload.name() == workload && each_client.name() == client
        })
        .map(|(_, caller)| Arc::clone(caller))
        .ok_or_else(|| format!("OA_SPEED_CALLS: no caller {workload}/{client}"))?;
    runtime.block_on(async {
        for _ in 0..n {
            crate::batch(&caller, 1).await;
        }
    });
    Ok(())
}
