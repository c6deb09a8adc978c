/// The stable rule codes of matrix validation. Codes never change meaning; retired codes are not reused.
/// Every code is documented, with an example and a fix, in docs/MATRIX.md.
public enum MatrixRule: String, Sendable, CaseIterable {
    /// The file is not well-formed JSON (the message names line and column).
    case malformedJSON = "MX001"
    /// The file cannot be read.
    case unreadable = "MX002"
    /// A member has the wrong JSON type (e.g. `axes` is an array, a value is a number where a string is needed).
    case wrongType = "MX003"
    /// A required member (`name`, `corpus`, `registry`, `axes`) is missing.
    case missingMember = "MX004"
    /// A member the matrix format does not define (usually a typo such as `axis` or `exlude`).
    case unknownMember = "MX005"
    /// An axis has no values, or the matrix has no axes.
    case emptyAxis = "MX006"
    /// A value is not in the axis' vocabulary (direction, orientation, network), or names a value that no
    /// combination can have (an exclude, constraint or seed row value that is not among the axis' values).
    case unknownAxisValue = "MX007"
    /// A `locale` value is not a well-formed BCP-47 language tag.
    case badLocale = "MX008"
    /// A `window` value is neither a preset nor `WxH` with whole numbers in range.
    case badWindow = "MX009"
    /// A custom network object lacks a field or has one out of range.
    case badNetwork = "MX010"
    /// An axis lists the same (normalised) value twice.
    case duplicateValue = "MX011"
    /// An exclude, constraint or seed row names an axis the matrix does not have.
    case unknownAxis = "MX012"
    /// An include key is not an axis but looks like a misspelt one (include keys that are not axes add keys).
    case suspiciousIncludeKey = "MX013"
    /// Excludes and constraints together leave no configuration at all.
    case nothingLeft = "MX014"
    /// The t-wise strength is below 2 or larger than the number of axes.
    case badStrength = "MX015"
    /// The reduction strategy is not `full`, `pairwise` or `t-wise`.
    case unknownStrategy = "MX016"
    /// A corpus folder or file does not exist.
    case missingCorpus = "MX017"
    /// A run policy value is out of range (retries, timeout, keep, seed).
    case badPolicy = "MX018"
    /// A seed row violates an exclude or a constraint, so it could never run.
    case seedRowViolates = "MX019"
    /// A constraint is malformed: empty `if` or `then`, or an unknown operator.
    case badConstraint = "MX020"
    /// The tag filter selects no scenario of the corpus.
    case noScenarioSelected = "MX021"
    /// An axis name is empty or contains `=`, `,` or whitespace.
    case badAxisName = "MX022"
    /// The registry name or a label is empty.
    case badRegistry = "MX023"
    /// An object names the same member twice (`"axes"` twice); JSON leaves which one wins undefined.
    case duplicateMember = "MX024"
    /// The plan would have more jobs than the job limit (`PlanSettings.maximumJobs`, `--max-jobs`).
    case tooManyJobs = "MX025"
    /// A t-wise reduction implies more generator work than `CoveringArray.Settings.maximumWork`.
    case reductionTooLarge = "MX026"
    /// A command template names a placeholder no job has (`{locle}`), or its braces do not balance.
    case unknownPlaceholder = "MX027"
    /// A command is malformed: empty `argv`, one string without `"shell": true`, empty or repeated `items`.
    case badCommand = "MX028"
    /// The items command (run where the plan is made) failed or printed no item.
    case itemsCommandFailed = "MX029"
    /// A warning, not an error: the script of a `"shell": true` command asks for a value as script text
    /// (`{raw:locale}`), so a value with shell syntax in it runs as a command.
    case rawShellPlaceholder = "MX030"
    /// A custom axis or include key is named like a typed axis (`lcoale`, `netwrok`, `Locale`) and is not listed in
    /// `customAxes`: as written its values would change nothing a registry applies.
    case typedAxisMisspelt = "MX031"
    /// A `customAxes` entry is a typed axis, or names neither an axis nor an include key of the matrix.
    case badCustomAxes = "MX032"
    /// A top-level key is a misspelling of a matrix member (`axis` for `axes`, `regsitry` for `registry`); the file
    /// is still read as a matrix, not as a scenario, because it has no `steps` and a matrix-like key.
    case misspeltTopLevelKey = "MX033"
    /// `policy.audit` is not `none` or `every-step`.
    case badAuditPolicy = "MX034"
    /// `policy.audit` asks for an audit the matrix' registry does not publish (`assert page accessible` is not in its
    /// manifest's clauses).
    case auditUnsupported = "MX035"
    /// `registry` is an empty list, lists a name twice, or lists more than `RegistryRules.maximumRegistries`.
    case badRegistryList = "MX040"
    /// An exclude or constraint names a registry the matrix does not list (`"registry": "wbe"`).
    case unknownRegistry = "MX041"
    /// `registry` is used where only the top-level member may name registries: as an axis, or in an include entry.
    case registryNotAnAxis = "MX042"
    /// The registry excludes and constraints leave a listed registry no configuration, so it would run nothing.
    case registryRunsNothing = "MX043"
    /// `policy.recording` is not `off`, `failures` or `all`, or `keep` drops what it would record (`keep: none`; `all`
    /// with `keep: failures`).
    case badRecording = "MX044"
    /// `policy.visual.threshold` is not a number from 0 to 1.
    case badVisualThreshold = "MX045"
    /// `policy.visual.maxDiffPixels` is not a whole number ≥ 0, or `maxDiffRatio` is not a share from 0 to 1.
    case badVisualTolerance = "MX046"
    /// A `policy.visual.masks` entry is neither a non-empty element identifier nor a rectangle of whole pixels.
    case badVisualMask = "MX047"
    /// `policy.visual.onChange` is not `fail` or `report`.
    case badVisualOnChange = "MX048"
    /// `policy.visual` with `keep: none`: no step picture would be recorded to compare.
    case visualWithoutPictures = "MX049"
    /// `web` is not an object with a `root` folder (and optionally `pages`), or a folder it names does not exist.
    case badWebSite = "MX050"
    /// `web` names a site but the matrix does not run the `web` registry.
    case webSiteWithoutWebRegistry = "MX051"
    /// A listed registry that no known worker publishes: an error when a published name is close (`"wbe"`, did you
    /// mean `web`), a warning otherwise (a registry of the user's own worker; `validate --worker-executable`).
    case unpublishedRegistry = "MX059"

    public var code: String { rawValue }

    /// A warning: said, but the matrix still plans and runs (`ValidationFinding.isWarning`).
    public var isWarning: Bool { self == .rawShellPlaceholder }
}
