/// The stable rule codes of scenario validation. Codes never change meaning; retired codes are not reused.
/// Every code is documented in docs/SCENARIOS.md.
public enum ScenarioRule: String, Sendable, CaseIterable {
    /// The file is not well-formed JSON (message names line and column).
    case malformedJSON = "FS001"
    /// The file cannot be read.
    case unreadable = "FS002"
    /// The document or a field has the wrong JSON type (e.g. `steps` is not an array).
    case wrongType = "FS003"
    /// A required field (`id`, `title`, `steps`, a step's `verb` or `target`) is missing.
    case missingField = "FS004"
    /// `steps` is empty.
    case noSteps = "FS005"
    /// A step's verb is not in the closed vocabulary.
    case unknownVerb = "FS006"
    /// A step's target is empty.
    case emptyTarget = "FS007"
    /// A swipe has no direction.
    case swipeWithoutDirection = "FS008"
    /// A swipe direction is not up, down, left or right.
    case unknownSwipeDirection = "FS009"
    /// A wait or assert timeout is not a number.
    case nonNumericTimeout = "FS010"
    /// A wait or assert timeout is zero or negative.
    case nonPositiveTimeout = "FS011"
    /// A rotate has no orientation.
    case rotateWithoutOrientation = "FS012"
    /// A rotate orientation is not portrait or landscape.
    case unknownOrientation = "FS013"
    /// A type step has no text.
    case typeWithoutText = "FS014"
    /// Two scenarios of one corpus share an id.
    case duplicateID = "FS015"
    /// The id or title is empty.
    case emptyIdentity = "FS016"
    /// A member that the scenario format does not define (usually a typo such as `step` or `args`).
    case unknownField = "FS017"
    /// A numeric step argument (a wait or assert timeout) is out of range (above one day).
    case numberOutOfRange = "FS018"
    /// An object names the same member twice (`"steps"` twice); JSON leaves which one wins undefined.
    case duplicateMember = "FS019"
    /// A corpus folder holds no scenario file (`*.json`), so nothing would be checked or run.
    case emptyCorpus = "FS020"
    /// A step's `verb:target` is not wired by the matrix's registry (its published `RegistryManifest`), so it would
    /// fail in every configuration.
    case stepNotWired = "FS021"
    /// An `assert` clause is not in the vocabulary the matrix's registry publishes for that target (`leading`).
    case unknownAssertClause = "FS022"
    /// A step is wired by some registries of a multi-registry matrix but not by this one: the scenario would fail only
    /// on this registry (a parity gap: machinery missing from one renderer, not a typo).
    case stepWiredElsewhere = "FS023"
    /// A `StepTable` (a registry's declared wiring) holds an entry that is not `verb:target` with a known verb.
    case badWiringEntry = "FS024"

    public var code: String { rawValue }
}
