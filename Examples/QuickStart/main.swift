// QuickStart: a guided tour of LiveChannels. Run it with `swift run QuickStart`.

await CoreTour.run()
