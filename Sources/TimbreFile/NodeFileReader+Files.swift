import Foundation
import TimbreEngine

extension NodeFileReader {
    /// Reads node files from disk: relative names in `directory` (the preset's folder, else the
    /// working directory), sound files with libsndfile, any other file's bytes.
    public static func files(in directory: String?) -> NodeFileReader {
        NodeFileReader(
            sound: { (name, path) throws(PresetError) in
                let file = PlayerFeeder.resolve(name, directory: directory)
                do {
                    let reader = try SoundFileReader(path: file)
                    return (try reader.readAll(), reader.sampleRate)
                } catch {
                    throw PresetError(path: path, "\(error)")
                }
            },
            bytes: { (name, path) throws(PresetError) in
                let file = PlayerFeeder.resolve(name, directory: directory)
                guard let data = FileManager.default.contents(atPath: file) else {
                    let why = FileManager.default.fileExists(atPath: file) ? "cannot be read" : "no such file"
                    throw PresetError(path: path, "\(file): \(why)")
                }
                return [UInt8](data)
            },
            isSoundFile: { name in (try? SoundFileReader(path: PlayerFeeder.resolve(name, directory: directory))) != nil })
    }
}
