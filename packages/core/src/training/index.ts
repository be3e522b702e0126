export * from "./balanced-sampler";
