import Foundation

/// The game's sounds: CAF files that CAFConvPlugin made from the WAV files under `Sounds/`.
public enum GameSounds {
    /// The URL of the CAF resource named `name` (`"click"` for `Sounds/ui/click.wav`).
    public static func url(_ name: String) -> URL? { Bundle.module.url(forResource: name, withExtension: "caf") }
}
