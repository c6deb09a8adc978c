import FlowSpec
import MatrixPlan

/// The size of the app's window for a run, in points, after orientation.
public struct Viewport: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public var orientation: DeviceOrientation

    public init(width: Int, height: Int, orientation: DeviceOrientation) {
        self.width = width
        self.height = height
        self.orientation = orientation
    }

    /// The portrait size (width × height) of each window preset; landscape swaps the axes.
    public static func portraitSize(of preset: WindowPreset) -> (width: Int, height: Int) {
        switch preset {
        case .narrowPortrait: (320, 720)  // a one-third split on a tablet
        case .narrowLandscape: (568, 320)  // a small landscape-shaped window
        case .shortWide: (1024, 360)  // very short and wide
        case .tallNarrow: (320, 1180)  // tall and narrow (a side column)
        case .regularSquare: (744, 744)  // regular width, squarish
        case .fullWindow: (820, 1180)  // the whole screen of an 11-inch tablet
        case .smallFloating: (320, 480)  // a small floating window
        }
    }

    /// The viewport for a window value and an orientation: the window's portrait size, axes swapped in landscape.
    /// A `WxH` window is read as its portrait size too.
    public static func resolve(window: WindowSpec, orientation: DeviceOrientation) -> Viewport {
        let (w, h): (Int, Int)
        switch window {
        case .preset(let preset): (w, h) = portraitSize(of: preset)
        case .custom(let width, let height): (w, h) = (width, height)
        }
        switch orientation {
        case .portrait: return Viewport(width: w, height: h, orientation: .portrait)
        case .landscape: return Viewport(width: h, height: w, orientation: .landscape)
        }
    }

    /// The same window turned to `orientation` (axes swap when the orientation changes).
    public func rotated(to orientation: DeviceOrientation) -> Viewport {
        guard orientation != self.orientation else { return self }
        return Viewport(width: height, height: width, orientation: orientation)
    }

    public var description: String { "\(width)x\(height) \(orientation.rawValue)" }
}
