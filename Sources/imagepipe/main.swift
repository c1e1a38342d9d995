import ImagePipeCommand
#if canImport(Glibc)
import Glibc
#endif

exit(ImagePipeCommand().main(Array(CommandLine.arguments.dropFirst())))
