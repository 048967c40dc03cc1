import BinaryIO

/// The `edct` chunk: time-stamped edit comments, laid out like the `info` chunk (a count, then
/// key/value string pairs whose keys are time stamps).
public typealias EditComments = InfoStrings
