// Whoever imports the framework gets the core (images, stages, schemas, the language) with it,
// so an embedding program needs one import; a stage package imports `ImagePipeCore` alone.
@_exported import ImagePipeCore
