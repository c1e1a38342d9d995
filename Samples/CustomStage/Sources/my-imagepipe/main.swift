import ImagePipe
import ImagePipeCommand
import ImagePipeStages
import Sepia
#if canImport(Glibc)
import Glibc
#endif

// The stock command with `sepia` compiled in.
let command = ImagePipeCommand(registry: Registry(plugins: StandardPlugins.all + [SepiaPlugin.plugin]))
exit(command.main(Array(CommandLine.arguments.dropFirst())))
