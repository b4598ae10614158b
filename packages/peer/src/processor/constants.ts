/** How long a peer waits for room announcements after asking for open MacroJobs (ms). */
export const DEFAULT_DISCOVERY_MS = 150
/**
 * Rounds without open items after which a peer leaves a job for another job open to it (drained-jobs.ts): about
 * 0.5 s of looking (a discovery, a short wait), so a job's tail, whose last items run on other peers, does not hold
 * it while other jobs wait.
 */
export const DRAINED_IDLE_ROUNDS = 2
/** Rounds without open items after which a peer looks at the jobs again though no other job is open to it. */
export const MAX_IDLE_ROUNDS = 20
/** How long an idle processor waits before looking for work again (ms). */
export const DEFAULT_IDLE_MS = 500
/** MicroJobs a processor asks for in its first queue turn of a job (then {@link DEFAULT_TURN_MS} of work, turn-size.ts). */
export const DEFAULT_WANT = 16
/**
 * A queue turn asks for about this much work (ms) at the MicroJob run time measured so far. Each turn costs a request,
 * a snapshot or two and one CRDT update to every peer of the job; 2 s instead of 1 s cut proc:8's messages per MicroJob
 * by 30 % and its ratio in 3 of 3 pairs (docs/coordination.md, Fifteenth round), while a large queue's last round is
 * still split evenly (coord/queue.ts) so the tail does not grow with it.
 */
export const DEFAULT_TURN_MS = 2_000
/**
 * A queue turn asks for at least this much work (ms) per peer of the job: each turn costs every peer of the job one
 * CRDT update, so with N peers a peer receives about N / (turn length) of them per second; 100 ms per peer keeps that
 * at or below 10 per second at any N (2 s turns up to 20 peers, 10 s at 100; `MAX_WANT` caps a turn of
 * short MicroJobs). It was 10 ms (100 updates per second) until 16 peer processes on 2 cores showed the loop it
 * feeds: a starved peer's MicroJobs take longer on the wall clock, so its turns held fewer of them, so there were more
 * turns and updates, which starved the peers further (docs/coordination.md, Twelfth round).
 */
export const TURN_MS_PER_PEER = 100
/** Most MicroJobs asked for per queue turn (the owner caps it to a fair share and its `maxBatch`). */
export const MAX_WANT = 64

/**
 * A peer asks for its next queue turn this long (ms, at the measured run time) before its current turn's work ends,
 * so that the handoff, which takes a gossip round trip and the lock, overlaps the last MicroJobs instead of
 * following them (turn-size.ts `lead`). At least the last MicroJob of a turn; at most a quarter of the turn.
 */
export const DEFAULT_ASK_AHEAD_MS = 250
/**
 * A job's doc opens once its catch-up from one peer is done or after this long (ms); the catch-up goes on (job-context.ts).
 * At a new job the peers that learn it last waited 0.2-0.6 s for it at proc:8 (docs/coordination.md, Fifteenth round).
 */
export const DEFAULT_CATCH_UP_WAIT_MS = 100
/** A room announcement is trusted for this long (ms). */
export const DEFAULT_ANNOUNCEMENT_TTL_MS = 3_000
/** Completion counts as ours if our last result was written this recently (ms). */
export const DEFAULT_COMPLETION_WINDOW_MS = 1_000
/** Least wall-clock limit of one MicroJob run (ms), whatever the job's estimate says. */
export const DEFAULT_MIN_RUN_TIMEOUT_MS = 5_000
/** Most wall-clock time of one MicroJob run (ms): the executor's own default limit. */
export const DEFAULT_MAX_RUN_TIMEOUT_MS = 30_000
/** A MicroJob may run this many times longer than the job's `estimate.secondsPerMicroJob`. */
export const RUN_TIMEOUT_FACTOR = 10
/**
 * A check of a job the CRDT says failed (`jobFailedInCrdt`) runs the named MicroJob under this many times the queue's
 * limit: a module that loops outlasts any limit, while a healthy but heavy MicroJob that forged records name, checked
 * beside this peer's other runs, must not time out for the load alone.
 */
export const CHECK_RUN_TIMEOUT_FACTOR = 3
/**
 * Finished MicroJobs of a queue turn are written together: at the end of the turn, or once the oldest unwritten
 * result is this old (ms). One CRDT update (one gossip message, verified once per peer) per turn instead of one per
 * MicroJob; well under the lease renew interval, so an unwritten result's lease never runs out. A turn is about two
 * seconds of work and its results go out with the next turn's lock; the timer is for a turn that runs long. At 1 s it
 * fired inside most turns of a starved peer (16 processes on 2 cores), one more doc update to every peer each time
 * (docs/coordination.md, Eleventh round); 6 s instead of 3 changed nothing at proc:16 (Fifteenth round).
 */
export const DEFAULT_RESULT_FLUSH_MS = 3_000
/**
 * A member's queue turn unanswered this long (ms) means its room is stuck (every owner answers or hands off within a
 * heartbeat, and a silent owner is failed over within a few seconds): the processor leaves the room, reports it, and
 * chooses again.
 */
export const DEFAULT_TURN_WAIT_MS = 30_000

/**
 * How long a peer beyond the first M of a job's start order (processor/start-order.ts) lets the first M claim the
 * MacroJobs before it may claim one itself, from its first room choice in the job (ms). A claim is visible within
 * tens of ms of its claimant's choice (the claimant subscribes to the room first), so the wait normally ends long
 * before this; the bound covers a first-M peer that never claims (it works on another job, or it is gone) and
 * claimants that choose late (16 peer processes on 2 cores chose 0.4-2 s after the announcement).
 */
export const DEFAULT_START_WAIT_MS = 2_000

/** How often a peer waiting on the start order looks again (ms); a room announcement wakes it sooner. */
export const DEFAULT_START_POLL_MS = 50
/**
 * Jobs new to a peer that one sender may announce on `/jobs` (a token bucket per sender): each is read on chain
 * (`fundedJobs`), and announcements are free to sign. A DApp may submit dozens of jobs at once (the e2e tests submit
 * 20); a peer asking for open jobs learns the rest from the index (not limited: what a node not registered writes
 * there is checked, docs/crdt.md).
 */
export const NEW_JOBS_PER_SENDER = { ratePerSecond: 5, burst: 100 }

/**
 * How long after a job ended here on MacroJob summaries (a peer that did not work on a MacroJob does not read its doc)
 * those MacroJobs' docs are read, unless the job is settled on chain by then (ms; summary-check.ts). A forged summary
 * delays its MacroJob by about this much at most, once; an honest job is usually settled within it (the demo releases
 * its escrow ~18 s after the last MicroJob).
 */
export const DEFAULT_SUMMARY_CHECK_MS = 30_000

/** A summarized MacroJob's doc open here without all its results is exchanged again at most this often (ms; job-context.ts). */
export const MACRO_RESYNC_MS = 2_000

/**
 * A peer answers requests for its job announcements (`openJobs` on `/jobs`) at most this often (ms); a request within
 * it is answered at its end. Answers go to every subscriber, so one serves every request before it; and anyone may
 * ask (keys are free), while each answer costs a verification per index entry and a message per own announcement.
 */
export const OPEN_JOBS_ANSWER_MS = 1_000
