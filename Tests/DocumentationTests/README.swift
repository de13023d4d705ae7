// The tests are generated from the documentation by the DocumentationTestsPlugin build-tool
// plugin (see Tools/DocTestGenerator); this file only keeps the target non-empty.
