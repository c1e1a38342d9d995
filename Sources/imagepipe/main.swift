import ImagePipeCommand
#if canImport(Glibc)
import Glibc
#endif

// A full file-size limit should fail a write with an error, not kill the process.
signal(SIGXFSZ, SIG_IGN)
exit(ImagePipeCommand().main(Array(CommandLine.arguments.dropFirst())))
