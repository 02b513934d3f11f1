// Package wire is the vocabulary a master and its workers speak (M4): the messages,
// the subjects they travel on and the binary frame of a fetch result. It sits above
// the transport (package cluster: NATS, JetStream, the size-checked JSON codec) and
// below the roles (the engine's master and worker), so both roles share one
// definition of every message and a test can check a message without either role.
//
// Subjects sit under a prefix (config.DefaultClusterPrefix); Subjects names them:
//
//	PREFIX.join               worker -> master, request: Join -> JoinReply
//	PREFIX.hb.NODE            worker -> master, request: Heartbeat -> HeartbeatReply
//	PREFIX.leave              worker -> master, request: Leave -> ControlReply (graceful leave, tasks handed back)
//	PREFIX.task.NODE          master -> worker, JetStream stream PREFIX_TASKS: Tasks
//	PREFIX.result.NODE        worker -> master, JetStream stream PREFIX_RESULTS: a Result frame
//	PREFIX.result.NODE.defer  worker -> master, the same stream: Deferral (a URL set aside, not fetched)
//	PREFIX.ctl.NODE           master -> worker, request: Control -> ControlReply
//	PREFIX.egress.claim       worker -> master, request: Claim -> ClaimReply
//
// Tasks, results and deferrals go through JetStream (file storage next to the
// master's database), so neither a worker's nor the master's death loses one: the
// master acknowledges a result only once it is committed, and commits a URL's result
// at most once (the lease it handed the URL out with). A deferral shares the result
// stream so it keeps its place among the worker's results, and it is a message of its
// own so the master never takes a URL set aside for a fetch that failed.
package wire
