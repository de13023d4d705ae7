// QuickStart: a guided tour of LiveChannels. Run it with `swift run QuickStart`.

await CoreTour.run()
do {
    try await ChannelStory.run()
} catch {
    print("The story stopped: \(error)")
}
