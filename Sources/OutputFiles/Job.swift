import ConversionModel

/// One file to convert: where it comes from and where its CAF goes.
public struct Job: Equatable, Sendable {
    /// The input path as found (a given path, or a folder path joined with the relative path).
    public var input: String
    /// The output path.
    public var output: String
    /// The folder whose `.cafconv-manifest` records this output: the `-o` folder, the folder of a
    /// single output file, or the input folder when outputs are written beside their inputs.
    public var stateFolder: String
    /// The folder the output path is resolved from: it is opened as named (following symlinks,
    /// like any path the user types); below it no symlink is followed. The `-o` folder, or the
    /// output's own folder.
    public var root: String
    /// The folder input this job was found under (`nil` for a file given by name): a rules file
    /// at its root applies, and ``relative`` is relative to it.
    public var inputRoot: String?
    /// The input's path relative to ``inputRoot`` (`sfx/hit.wav`), or its name for a file given by
    /// name: what rules files match.
    public var relative: String

    /// Creates a job; `stateFolder` and `root` default to the output's folder.
    public init(
        input: String, output: String, stateFolder: String? = nil, root: String? = nil, inputRoot: String? = nil,
        relative: String? = nil
    ) {
        self.input = input
        self.output = output
        self.stateFolder = stateFolder ?? FileSystem.directoryName(output)
        self.root = root ?? FileSystem.directoryName(output)
        self.inputRoot = inputRoot
        self.relative = relative ?? FileSystem.baseName(input)
    }

    /// Two jobs are equal when they convert the same input to the same output.
    public static func == (lhs: Job, rhs: Job) -> Bool {
        lhs.input == rhs.input && lhs.output == rhs.output
    }
}
