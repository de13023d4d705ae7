// LiveChannels
