extension Scenario {
    /// The tag a plan adds to every scenario of a matrix with `policy.recording` `failures` or `all`: the web registry
    /// screencasts a job whose scenario has it (`WebHost.makeRegistry`). A scenario may also carry it itself.
    public static let recordingTag = "recording=on"
}
