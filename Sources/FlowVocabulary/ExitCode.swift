/// The exit codes of the `flowmatrix` command and of worker executables (`WorkerMain`): one table, documented in
/// each command's help and in docs/FLEET.md ("Exit codes"). It lives in the vocabulary every layer shares, so the
/// CLI, the worker runtime and a user's worker name the same codes without one depending on another.
public enum ExitCode {
    public static let success: Int32 = 0
    /// Findings, failed jobs, or a failed check.
    public static let failures: Int32 = 1
    /// An input file could not be read or a run could not start (I/O, port in use, missing run).
    public static let ioError: Int32 = 2
    /// A worker gave up reconnecting (`--give-up-after`) without hearing a rejection last.
    public static let gaveUp: Int32 = 2
    /// A worker was still rejected (token, version) when `--give-up-after` ran out.
    public static let rejected: Int32 = 3
    /// `plan --explain` could not answer: the query names no job, configuration, axis or value of the plan.
    public static let unanswered: Int32 = 4
    /// A usage error: unknown flag, missing argument, bad value (sysexits EX_USAGE).
    public static let usage: Int32 = 64
    /// The input does not make a run (sysexits EX_DATAERR): matrix or corpus findings (`run`, `serve`), shards
    /// that are not one run (`merge`). Nothing runs or is written.
    public static let invalidInput: Int32 = 65
    /// The run was interrupted (Ctrl-C twice) before it completed.
    public static let interrupted: Int32 = 130
}
