extension AxisPivot {
    /// A job as the pivot counts it. Its profile — the value ids it is tallied under, the scenario's first, then
    /// by axis — is its scenario's value followed by its body's values (``Profiles``): jobs are not copied into
    /// per-job arrays, so a million one-off configurations cost 12 bytes a job here.
    struct Counted {
        /// Index into ``Profiles/scenarioValues``; -1 when the body holds every value.
        var scenario: Int32
        var body: Int32
        var failure: Bool
        var flaky: Bool

        func sameProfile(_ other: Counted) -> Bool { scenario == other.scenario && body == other.body }
    }

    /// Where the pivot reads a job's value ids.
    struct Profiles {
        /// The pivot's value id of each scenario of the index.
        var scenarioValues: [Int32] = []
        /// Bodies the pivot interned: jobs given as values, or an index's configurations with axes left out.
        var bodies = InternedSlices()
        /// An index's configurations used as bodies as they are (no axis left out), their value ids translated
        /// into the pivot's by ``translation``.
        var configurations: ConfigurationTable?
        var translation: [Int32] = []

        /// Job `job`'s profile, written into `ids` (emptied first).
        func ids(_ job: Counted, into ids: inout [Int32]) {
            ids.removeAll(keepingCapacity: true)
            if job.scenario >= 0 { ids.append(scenarioValues[Int(job.scenario)]) }
            if let configurations {
                for value in configurations.valueIDs(job.body) { ids.append(translation[Int(value)]) }
            } else {
                ids.append(contentsOf: bodies[job.body])
            }
        }

        /// The jobs of an index, each with its verdict: the configuration is the body, or — when `excluded` names
        /// an axis the run has — the configuration without that axis, interned once per configuration.
        static func of(_ index: RunIndex, excluding excluded: Set<String>, skipped: Set<Int>, flakyFails: Bool,
                       values: inout ValueTable) -> (Profiles, [Counted]) {
            var profiles = Profiles()
            profiles.scenarioValues = index.scenarios.map { values.id(AxisValue(axis: AxisPivot.scenarioAxis, value: $0.id)) }
            let table = index.configurations
            let translation = table.values.map { excluded.contains($0.axis) ? -1 : values.id($0) }
            let translated = !translation.contains(-1)
            if translated {
                profiles.configurations = table
                profiles.translation = translation
            }
            var bodyOf = [Int32](repeating: -1, count: translated ? 0 : table.count)
            var counted: [Counted] = []
            counted.reserveCapacity(index.jobs.count)
            for (position, job) in index.jobs.enumerated() where job.status.isVerdict && !skipped.contains(position) {
                var body = job.configuration
                if !translated {
                    if bodyOf[Int(body)] < 0 {
                        bodyOf[Int(body)] = profiles.bodies.intern(table.valueIDs(body).map { translation[Int($0)] }.filter { $0 >= 0 })
                    }
                    body = bodyOf[Int(body)]
                }
                let failure = job.status.isFailure || (flakyFails && job.status == .flaky)
                counted.append(Counted(scenario: job.scenario, body: body, failure: failure, flaky: job.status == .flaky))
            }
            return (profiles, counted)
        }
    }

    /// Interned axis values.
    struct ValueTable {
        var values: [AxisValue] = []
        var ids: [AxisValue: Int32] = [:]
        mutating func id(_ value: AxisValue) -> Int32 {
            if let id = ids[value] { return id }
            ids[value] = Int32(values.count)
            values.append(value)
            return Int32(values.count - 1)
        }
    }
}
