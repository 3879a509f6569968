import Foundation
import Testing
import TimbreDSP
import TimbreTestSignals

/// Bells through the real kernel (impulse → naive DFT) against the analog RBJ peaking
/// prototype written out in `Reference.peakingDB`.
@Suite struct PeakingAccuracyTests {
    static let rates: [Double] = [44100, 48000, 96000]
    /// 1/3-octave centres from 20 Hz to 20 kHz.
    static let centers = Reference.logGrid(20, 20000, count: 31)

    /// The gain at f0 is exact (``Tolerance/Name/peakGainAtCenter``), both designs, 20 Hz–20 kHz below 0.49·fs.
    @Test(arguments: rates, DesignMethod.allCases)
    func gainAtCenterIsExact(sampleRate: Double, method: DesignMethod) {
        var worst = 0.0
        for f0 in Self.centers where f0 < 0.49 * sampleRate {
            for gain in [-20.0, -12, -3, 3, 12, 20] {
                for q in [0.5, 1, 4, 10] {
                    let d = FilterDesign(type: .peak, frequencyHz: f0, gainDB: gain, q: q, method: method)
                    let ir = Reference.impulseResponse(d.sections(sampleRate: sampleRate))
                    let got = Reference.dtftDB(ir, frequencyHz: f0, sampleRate: sampleRate)
                    worst = max(worst, abs(got - gain))
                    #expect(abs(got - gain) <= Tolerance[.peakGainAtCenter].limit, "\(method) \(f0) Hz \(gain) dB Q \(q) @ \(sampleRate): \(got) dB")
                }
            }
        }
        print(String(format: "Peak gain at f0 (%@ @ %.0f Hz): worst error %.5f dB (limit %.3f)", method.rawValue, sampleRate, worst, Tolerance[.peakGainAtCenter].limit))
    }

    /// The accuracy table: gains within ±12 dB, Q 0.5–4, every 1/3-octave f0 from
    /// 20 Hz to 20 kHz below 0.49·fs, compared over 20 Hz–min(20 kHz, 0.9·Nyquist).
    /// Limits: the `peakMatchedThirdOctave…` rows of the tolerance table.
    /// The bilinear worst case is printed beside it (it is expected to be several dB).
    @Test(arguments: zip(rates, [Tolerance.Name.peakMatchedThirdOctave44k, .peakMatchedThirdOctave48k, .peakMatchedThirdOctave96k]))
    func matchedFollowsAnalogPrototype(sampleRate: Double, name: Tolerance.Name) {
        let limit = Tolerance[name].limit
        let grid = Reference.logGrid(20, min(20000, 0.45 * sampleRate), count: 70)
        var worst: [DesignMethod: (Double, String)] = [.matched: (0, ""), .bilinear: (0, "")]
        for f0 in Self.centers where f0 < 0.49 * sampleRate {
            for gain in [-12.0, -6, -1, 1, 6, 12] {
                for q in [0.5, 1, 2, 4] {
                    for method in DesignMethod.allCases {
                        let d = FilterDesign(type: .peak, frequencyHz: f0, gainDB: gain, q: q, method: method)
                        let ir = Reference.impulseResponse(d.sections(sampleRate: sampleRate))
                        for f in grid {
                            let err = abs(Reference.dtftDB(ir, frequencyHz: f, sampleRate: sampleRate)
                                          - Reference.peakingDB(f, f0: f0, gainDB: gain, q: q))
                            if err > worst[method]!.0 {
                                worst[method] = (err, String(format: "f0 %.0f Hz, %+.0f dB, Q %.1f, at %.0f Hz", f0, gain, q, f))
                            }
                        }
                    }
                }
            }
        }
        print(String(format: "Peaking vs analog @ %5.0f Hz: matched %.3f dB (limit %.2f; %@) | bilinear %.2f dB (%@)",
                     sampleRate, worst[.matched]!.0, limit, worst[.matched]!.1, worst[.bilinear]!.0, worst[.bilinear]!.1))
        #expect(worst[.matched]!.0 <= limit, "\(worst[.matched]!.1)")
        #expect(worst[.bilinear]!.0 > worst[.matched]!.0, "bilinear should cramp more than matched")
    }

    /// A boost followed by the same cut (same f0, Q) is flat (``Tolerance/Name/boostThenCutFlat``), 20 Hz–20 kHz.
    @Test(arguments: [FilterType.peak, .lowShelf, .highShelf])
    func boostThenCutIsFlat(type: FilterType) {
        var worst = 0.0
        for fs in Self.rates {
            for f0 in [20.0, 100, 1000, 8000, 16000, 20000] where f0 < 0.49 * fs {
                for gain in [3.0, 12, 20] {
                    for q in [0.5, 2, 8] {
                        let boost = FilterDesign(type: type, frequencyHz: f0, gainDB: gain, q: q).sections(sampleRate: fs)
                        let cut = FilterDesign(type: type, frequencyHz: f0, gainDB: -gain, q: q).sections(sampleRate: fs)
                        let ir = Reference.impulseResponse(boost + cut)
                        for f in Reference.logGrid(20, min(20000, 0.45 * fs), count: 40) {
                            let db = Reference.dtftDB(ir, frequencyHz: f, sampleRate: fs)
                            worst = max(worst, abs(db))
                            #expect(abs(db) <= Tolerance[.boostThenCutFlat].limit, "\(type) \(f0) Hz ±\(gain) dB Q \(q) @ \(fs): \(db) dB at \(f) Hz")
                        }
                    }
                }
            }
        }
        print(String(format: "Boost then cut (%@): worst deviation from flat %.6f dB (limit %.3f)", type.rawValue, worst, Tolerance[.boostThenCutFlat].limit))
    }

    /// Shelves reach their gain: the low shelf at DC, the high shelf near Nyquist, within 0.1 dB
    /// (analog: the shelf gain is reached asymptotically; checked at f0/100 and at min(100·f0, 0.45·fs)
    /// against the prototype value there).
    @Test func shelvesMatchPrototypeAtTheirPlateaus() {
        for fs in Self.rates {
            for gain in [-12.0, 6, 12] {
                let low = FilterDesign(type: .lowShelf, frequencyHz: 200, gainDB: gain, q: 0.7)
                let irLow = Reference.impulseResponse(low.sections(sampleRate: fs))
                #expect(abs(Reference.dtftDB(irLow, frequencyHz: 20, sampleRate: fs) - low.analogMagnitudeDB(at: 20)) < 0.1)
                let high = FilterDesign(type: .highShelf, frequencyHz: 8000, gainDB: gain, q: 0.7)
                let irHigh = Reference.impulseResponse(high.sections(sampleRate: fs))
                let fTop = min(20000, 0.45 * fs)
                #expect(abs(Reference.dtftDB(irHigh, frequencyHz: fTop, sampleRate: fs) - high.analogMagnitudeDB(at: fTop)) < 0.5,
                        "high shelf \(gain) dB @ \(fs)")
            }
        }
    }

    /// Every design is stable and its cuts are minimum phase (so the inverse used for cuts is stable).
    @Test func designsAreStable() {
        for fs in Self.rates {
            for type in FilterType.allCases {
                for f0 in Reference.logGrid(20, 0.48 * fs, count: 25) {
                    for q in [0.1, 0.7, 4, 20] {
                        for gain in type.hasGain ? [-20.0, 20] : [0.0] {
                            for s in FilterDesign(type: type, frequencyHz: f0, gainDB: gain, q: q).sections(sampleRate: fs) {
                                #expect(s.isStable, "\(type) \(f0) Hz Q \(q) \(gain) dB @ \(fs): \(s)")
                            }
                        }
                    }
                }
            }
        }
    }
}
