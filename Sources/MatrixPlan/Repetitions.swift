/// Stability mode (`run --repeat N`): every job of a plan N times, each repetition a job of its own.
///
/// A repetition adds the axis `repetition` = `1`…`N` to its job's configuration, so it has its own stable id (the
/// same every night, for `diff`), its own seed (seeds derive from the job id), and shows in reports, JUnit and
/// `show` like any job — `[repetition=3]` in its name. Retries, if the matrix has any, apply within a repetition.
public enum Repetitions {
    /// The configuration axis that numbers repetitions.
    public static let axis = "repetition"

    /// `jobs`, each repeated `count` times in plan order (job 1 × N, then job 2 × N, …); unchanged for count ≤ 1.
    /// The repetitions' configurations are the rows of each table repeated under the `repetition` variable.
    public static func expand(_ jobs: [Job], count: Int) -> [Job] {
        guard count > 1 else { return jobs }
        var out: [Job] = []
        out.reserveCapacity(jobs.count * count)
        var repeated: [ObjectIdentifier: ConfigurationTable] = [:]
        for job in jobs {
            let key = ObjectIdentifier(job.configurations.storage)
            let table = repeated[key] ?? job.configurations.repeated(count: count, as: axis)
            repeated[key] = table
            for r in 0..<count {
                out.append(Job(source: job.source, configurations: table, index: job.configurationIndex * count + r))
            }
        }
        return out
    }

    /// A configuration's canonical string without its repetition: the key under which repetitions are counted.
    public static func baseConfiguration(_ canonical: String) -> String {
        canonical.split(separator: ",", omittingEmptySubsequences: true)
            .filter { !$0.hasPrefix(axis + "=") }.joined(separator: ",")
    }
}
