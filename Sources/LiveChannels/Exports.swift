// The SDK's users write `import LiveChannels` and get the models and the observation core too.
@_exported import ChatAPI
@_exported import LiveCore
