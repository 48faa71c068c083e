// The next step's batch, staged while the current step computes. The training loop calls run()
// right after dispatch, or from the first reply when every core has a worker; whichever comes,
// the batch is staged once. A reply handler cannot throw into the loop, so an error is kept
// and check() throws it where the step can handle it.

export interface StageAhead {
  run(): void;
  check(): void;
}

/**
 * Runs `stage` once, at the first run(); an error is kept for check() to throw where the step
 * can handle it (run() may be called from a reply handler).
 */
export function stageAhead(stage: (() => void) | null): StageAhead {
  let done = stage === null;
  // Boxed, so that even a thrown null or undefined is kept.
  let failure: { error: unknown } | null = null;
  return {
    run(): void {
      if (done) return;
      done = true;
      try {
        stage!();
      } catch (err) {
        failure = { error: err };
      }
    },
    check(): void {
      if (failure !== null) throw failure.error;
    },
  };
}
