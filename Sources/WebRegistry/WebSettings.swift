import DevTools
import Foundation

/// What the `web` registry needs besides a job's configuration.
public struct WebSettings: Sendable {
    /// `open` targets resolve against this URL (e.g. `http://127.0.0.1:8080/`).
    public var baseURL: URL
    /// The attribute that names elements: a step's target `cart.total` is `[data-testid="cart.total"]`.
    public var identifierAttribute: String
    /// How long `wait` waits when its step gives no timeout (default 5 s).
    public var defaultWaitTimeout: Duration
    /// How long `assert` waits for its condition when its step gives no timeout (default 2 s).
    public var defaultAssertTimeout: Duration
    /// How long `tap`, `type` and `swipe` wait for their element to be there and visible (default 5 s).
    public var actionTimeout: Duration
    /// How long a page may take to answer a command before the step fails as a hanging page (default 10 s).
    public var pageTimeout: Duration
    /// How long `open` waits for the page's load event (default 30 s). A load that does not complete in time fails
    /// naming the requests still pending.
    public var loadTimeout: Duration
    /// Whether `open` fails when its document answers 4xx or 5xx, or when the page loaded without a stylesheet or
    /// script it asked for (default true: the failure is where the page broke, not at a later step that looks for an
    /// element of the page that never came — or a pass of layout checks that measured the browser's default styles).
    /// A scenario with the tag `error-pages=allow` turns it off for its job (`WebHost.makeRegistry`), e.g. to test the
    /// site's own 404 page.
    public var openFailsOnErrorStatus: Bool
    /// Device pixels per CSS pixel for screenshots (default 1: the cheapest PNG).
    public var deviceScaleFactor: Double
    /// Whether JavaScript dialogs are accepted (true) or dismissed when the interruption monitor handles them.
    public var acceptDialogs: Bool
    /// How permission requests are answered (default: deny everything); a job's `permissions` configuration value
    /// and a scenario's `permissions=…` tag are layered over it.
    public var permissions: PermissionPolicy
    /// Where an allowed geolocation request finds the device (default `GeolocationFix.standard`); a job's
    /// `geolocation` configuration value replaces it.
    public var geolocation: GeolocationFix
    /// Evidence per step: a PNG screenshot (plus the DOM, console and network logs, which are cheap).
    public var screenshots: Bool
    /// A screencast of each job's page (default false; the matrix's `policy.recording` turns it on through the scenario
    /// tag `recording=on`, `WebHost.makeRegistry`; its cost per job is in `flowmatrix bench web`, docs/WEB.md): its
    /// frames go with each step's evidence as `screencast-NNNN.jpg`, kept, like all evidence, for the attempts the keep
    /// policy keeps (`Screencast`).
    public var recording: Bool
    public var browser: BrowserSettings
    /// The page objects targets resolve through (nil: every target is a test id; docs/WEB.md, "Page objects").
    public var pageObjects: PageObjects?

    public init(
        baseURL: URL, identifierAttribute: String = "data-testid", defaultWaitTimeout: Duration = .seconds(5),
        defaultAssertTimeout: Duration = .seconds(2), actionTimeout: Duration = .seconds(5),
        pageTimeout: Duration = .seconds(10), loadTimeout: Duration = .seconds(30), deviceScaleFactor: Double = 1,
        openFailsOnErrorStatus: Bool = true, acceptDialogs: Bool = true,
        permissions: PermissionPolicy = PermissionPolicy(),
        geolocation: GeolocationFix = .standard, screenshots: Bool = true, recording: Bool = false,
        browser: BrowserSettings = BrowserSettings(), pageObjects: PageObjects? = nil
    ) {
        self.pageObjects = pageObjects
        self.baseURL = baseURL
        self.identifierAttribute = identifierAttribute
        self.defaultWaitTimeout = defaultWaitTimeout
        self.defaultAssertTimeout = defaultAssertTimeout
        self.actionTimeout = actionTimeout
        self.pageTimeout = pageTimeout
        self.loadTimeout = loadTimeout
        self.deviceScaleFactor = deviceScaleFactor
        self.openFailsOnErrorStatus = openFailsOnErrorStatus
        self.acceptDialogs = acceptDialogs
        self.permissions = permissions
        self.geolocation = geolocation
        self.screenshots = screenshots
        self.recording = recording
        self.browser = browser
    }
}
