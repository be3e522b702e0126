export * from "./balanced-sampler";
export * from "./stepwise-selection";
