public enum ConversionPlaceholder {}
