package contract

// Keys and formats of the bootstrap data Secret that a bootstrap provider writes and an infrastructure provider
// reads.
const (
	// BootstrapDataKey is the Secret key that holds the bootstrap data.
	BootstrapDataKey = "value"
	// BootstrapFormatKey is the optional Secret key that names the format of the bootstrap data
	// (FormatCloudConfig when absent).
	BootstrapFormatKey = "format"
	// FormatCloudConfig is the cloud-init cloud-config bootstrap format (the default).
	FormatCloudConfig = "cloud-config"
	// FormatIgnition is the Ignition bootstrap format.
	FormatIgnition = "ignition"
)
