/// Command lines as a POSIX shell reads them, for messages that give a command to run.
enum ShellWords {
    /// `word` as one shell word: as it is when no character is special, else in single quotes.
    static func quoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "_-./:=@%+,".unicodeScalars.contains(scalar))
        }
        return plain ? word : "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    /// `words` as one command line.
    static func line(_ words: [String]) -> String { words.map(quoted).joined(separator: " ") }
}
