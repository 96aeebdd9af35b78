// What the CLI prints after a run: the report of `run` and `local` as text or JSON (the reports
// themselves are shufflempc::api's, typed; here they are only printed).
#pragma once

#include "shufflempc/runtime.hpp"

namespace shufflempc::cli {

// A run's report (api::to_json of an api::RunReport, with what `local` adds) as JSON or as text.
void print_report(const Value& report, bool json);
// The chain's lines of a report (its mix_chain or verifiable_mix), as text.
void print_mix_chain(const Value& report);

}  // namespace shufflempc::cli
