/// lockr's version, which `lockr --version` prints and scripts/package-deb gives the package.
enum LockrVersion {
    static let current = "0.14.0"
}
