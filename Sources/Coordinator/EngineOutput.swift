import Journal

/// The actions an engine event produces, in the order the shell carries them out, with journal records gathered in
/// ``records`` until an action that must follow them: a record is handed to the journal before anything decided
/// after it, and records made together go out as one batch.
struct EngineOutput {
    private var actions: [CoordinatorEngine.Action] = []
    /// Records not yet in a `journal` action.
    var records: [JournalRecord] = []

    init(records: [JournalRecord] = []) { self.records = records }

    /// The last action appended.
    var last: CoordinatorEngine.Action? { actions.last }

    /// Appends `action` after a `journal` action for the records gathered so far.
    mutating func append(_ action: CoordinatorEngine.Action) {
        flushRecords()
        actions.append(action)
    }

    /// Appends `more` after a `journal` action for the records gathered so far.
    mutating func append(contentsOf more: [CoordinatorEngine.Action]) {
        guard !more.isEmpty else { return }
        flushRecords()
        actions += more
    }

    /// The actions, ending with the records still gathered.
    consuming func finish() -> [CoordinatorEngine.Action] {
        flushRecords()
        return actions
    }

    private mutating func flushRecords() {
        guard !records.isEmpty else { return }
        actions.append(.journal(records))
        records = []
    }
}
