package clusterctl

import (
	"io"
	"io/fs"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/contract/lint"
	"github.com/capkit/capkit/release/clusterctl"
)

// CanonicalImage calls release/clusterctl.CanonicalImage.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.CanonicalImage.
//
//go:fix inline
func CanonicalImage(ref string) (string, error) {
	return clusterctl.CanonicalImage(ref)
}

// CheckFiles calls release/clusterctl.CheckFiles.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.CheckFiles.
//
//go:fix inline
func CheckFiles(files ...*clusterctl.YAMLFile) (clusterctl.Findings, error) {
	return clusterctl.CheckFiles(files...)
}

// CheckMetadata calls release/clusterctl.CheckMetadata.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.CheckMetadata.
//
//go:fix inline
func CheckMetadata(u *unstructured.Unstructured) (lint.Violations, *clusterctl.ReleaseSeries) {
	return clusterctl.CheckMetadata(u)
}

// Classify calls release/clusterctl.Classify.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.Classify.
//
//go:fix inline
func Classify(f *clusterctl.YAMLFile) clusterctl.FileKind {
	return clusterctl.Classify(f)
}

// ClassifyFile calls release/clusterctl.ClassifyFile.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.ClassifyFile.
//
//go:fix inline
func ClassifyFile(name string) clusterctl.FileKind {
	return clusterctl.ClassifyFile(name)
}

// DefaultMaxFindings is release/clusterctl.DefaultMaxFindings.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.DefaultMaxFindings.
//
//go:fix inline
const DefaultMaxFindings = clusterctl.DefaultMaxFindings

// DefaultMaxYAMLBytes is release/clusterctl.DefaultMaxYAMLBytes.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.DefaultMaxYAMLBytes.
//
//go:fix inline
const DefaultMaxYAMLBytes = clusterctl.DefaultMaxYAMLBytes

// DefaultMaxYAMLDocuments is release/clusterctl.DefaultMaxYAMLDocuments.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.DefaultMaxYAMLDocuments.
//
//go:fix inline
const DefaultMaxYAMLDocuments = clusterctl.DefaultMaxYAMLDocuments

// DefaultMaxYAMLNodes is release/clusterctl.DefaultMaxYAMLNodes.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.DefaultMaxYAMLNodes.
//
//go:fix inline
const DefaultMaxYAMLNodes = clusterctl.DefaultMaxYAMLNodes

// Document is release/clusterctl.Document.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.Document.
//
//go:fix inline
type Document = clusterctl.Document

// ErrImageReference is release/clusterctl.ErrImageReference.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.ErrImageReference.
var ErrImageReference = clusterctl.ErrImageReference

// ErrMalformed is release/clusterctl.ErrMalformed.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.ErrMalformed.
var ErrMalformed = clusterctl.ErrMalformed

// ErrTooLarge is release/clusterctl.ErrTooLarge.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.ErrTooLarge.
var ErrTooLarge = clusterctl.ErrTooLarge

// FileCRDs is release/clusterctl.FileCRDs.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.FileCRDs.
//
//go:fix inline
const FileCRDs = clusterctl.FileCRDs

// FileClusterClass is release/clusterctl.FileClusterClass.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.FileClusterClass.
//
//go:fix inline
const FileClusterClass = clusterctl.FileClusterClass

// FileClusterTemplate is release/clusterctl.FileClusterTemplate.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.FileClusterTemplate.
//
//go:fix inline
const FileClusterTemplate = clusterctl.FileClusterTemplate

// FileComponents is release/clusterctl.FileComponents.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.FileComponents.
//
//go:fix inline
const FileComponents = clusterctl.FileComponents

// FileKind is release/clusterctl.FileKind.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.FileKind.
//
//go:fix inline
type FileKind = clusterctl.FileKind

// FileMetadata is release/clusterctl.FileMetadata.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.FileMetadata.
//
//go:fix inline
const FileMetadata = clusterctl.FileMetadata

// FileOther is release/clusterctl.FileOther.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.FileOther.
//
//go:fix inline
const FileOther = clusterctl.FileOther

// FileType calls release/clusterctl.FileType.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.FileType.
//
//go:fix inline
func FileType(m fs.FileMode) string {
	return clusterctl.FileType(m)
}

// FindUnclassified calls release/clusterctl.FindUnclassified.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.FindUnclassified.
//
//go:fix inline
func FindUnclassified(files ...*clusterctl.YAMLFile) []clusterctl.Unclassified {
	return clusterctl.FindUnclassified(files...)
}

// Finding is release/clusterctl.Finding.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.Finding.
//
//go:fix inline
type Finding = clusterctl.Finding

// Findings is release/clusterctl.Findings.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.Findings.
//
//go:fix inline
type Findings = clusterctl.Findings

// ListOrigin is release/clusterctl.ListOrigin.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.ListOrigin.
//
//go:fix inline
type ListOrigin = clusterctl.ListOrigin

// MetadataAPIVersion is release/clusterctl.MetadataAPIVersion.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.MetadataAPIVersion.
//
//go:fix inline
const MetadataAPIVersion = clusterctl.MetadataAPIVersion

// PositionError is release/clusterctl.PositionError.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.PositionError.
//
//go:fix inline
type PositionError = clusterctl.PositionError

// ReadOption is release/clusterctl.ReadOption.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.ReadOption.
//
//go:fix inline
type ReadOption = clusterctl.ReadOption

// ReadYAML calls release/clusterctl.ReadYAML.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.ReadYAML.
//
//go:fix inline
func ReadYAML(r io.Reader, name string, opts ...clusterctl.ReadOption) (*clusterctl.YAMLFile, error) {
	return clusterctl.ReadYAML(r, name, opts...)
}

// ReadYAMLFile calls release/clusterctl.ReadYAMLFile.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.ReadYAMLFile.
//
//go:fix inline
func ReadYAMLFile(path string, opts ...clusterctl.ReadOption) (*clusterctl.YAMLFile, error) {
	return clusterctl.ReadYAMLFile(path, opts...)
}

// ReleaseSeries is release/clusterctl.ReleaseSeries.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.ReleaseSeries.
//
//go:fix inline
type ReleaseSeries = clusterctl.ReleaseSeries

// RuleCRDAPIVersion is release/clusterctl.RuleCRDAPIVersion.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleCRDAPIVersion.
//
//go:fix inline
const RuleCRDAPIVersion = clusterctl.RuleCRDAPIVersion

// RuleCRDMoveLabel is release/clusterctl.RuleCRDMoveLabel.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleCRDMoveLabel.
//
//go:fix inline
const RuleCRDMoveLabel = clusterctl.RuleCRDMoveLabel

// RuleClusterClassCount is release/clusterctl.RuleClusterClassCount.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleClusterClassCount.
//
//go:fix inline
const RuleClusterClassCount = clusterctl.RuleClusterClassCount

// RuleClusterClassFileName is release/clusterctl.RuleClusterClassFileName.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleClusterClassFileName.
//
//go:fix inline
const RuleClusterClassFileName = clusterctl.RuleClusterClassFileName

// RuleClusterClassNamespace is release/clusterctl.RuleClusterClassNamespace.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleClusterClassNamespace.
//
//go:fix inline
const RuleClusterClassNamespace = clusterctl.RuleClusterClassNamespace

// RuleClusterClassObjectNamespace is release/clusterctl.RuleClusterClassObjectNamespace.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleClusterClassObjectNamespace.
//
//go:fix inline
const RuleClusterClassObjectNamespace = clusterctl.RuleClusterClassObjectNamespace

// RuleClusterClassTemplateRef is release/clusterctl.RuleClusterClassTemplateRef.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleClusterClassTemplateRef.
//
//go:fix inline
const RuleClusterClassTemplateRef = clusterctl.RuleClusterClassTemplateRef

// RuleClusterClassVariables is release/clusterctl.RuleClusterClassVariables.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleClusterClassVariables.
//
//go:fix inline
const RuleClusterClassVariables = clusterctl.RuleClusterClassVariables

// RuleClusterctlList is release/clusterctl.RuleClusterctlList.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleClusterctlList.
//
//go:fix inline
const RuleClusterctlList = clusterctl.RuleClusterctlList

// RuleComponentsAggregatedRole is release/clusterctl.RuleComponentsAggregatedRole.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleComponentsAggregatedRole.
//
//go:fix inline
const RuleComponentsAggregatedRole = clusterctl.RuleComponentsAggregatedRole

// RuleComponentsConversionWebhook is release/clusterctl.RuleComponentsConversionWebhook.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleComponentsConversionWebhook.
//
//go:fix inline
const RuleComponentsConversionWebhook = clusterctl.RuleComponentsConversionWebhook

// RuleComponentsIPAMRBAC is release/clusterctl.RuleComponentsIPAMRBAC.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleComponentsIPAMRBAC.
//
//go:fix inline
const RuleComponentsIPAMRBAC = clusterctl.RuleComponentsIPAMRBAC

// RuleComponentsImage is release/clusterctl.RuleComponentsImage.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleComponentsImage.
//
//go:fix inline
const RuleComponentsImage = clusterctl.RuleComponentsImage

// RuleComponentsInjectCAFrom is release/clusterctl.RuleComponentsInjectCAFrom.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleComponentsInjectCAFrom.
//
//go:fix inline
const RuleComponentsInjectCAFrom = clusterctl.RuleComponentsInjectCAFrom

// RuleComponentsManager is release/clusterctl.RuleComponentsManager.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleComponentsManager.
//
//go:fix inline
const RuleComponentsManager = clusterctl.RuleComponentsManager

// RuleComponentsNamespace is release/clusterctl.RuleComponentsNamespace.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleComponentsNamespace.
//
//go:fix inline
const RuleComponentsNamespace = clusterctl.RuleComponentsNamespace

// RuleComponentsObjectNamespace is release/clusterctl.RuleComponentsObjectNamespace.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleComponentsObjectNamespace.
//
//go:fix inline
const RuleComponentsObjectNamespace = clusterctl.RuleComponentsObjectNamespace

// RuleComponentsProviderLabel is release/clusterctl.RuleComponentsProviderLabel.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleComponentsProviderLabel.
//
//go:fix inline
const RuleComponentsProviderLabel = clusterctl.RuleComponentsProviderLabel

// RuleMetadataAPIVersion is release/clusterctl.RuleMetadataAPIVersion.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleMetadataAPIVersion.
//
//go:fix inline
const RuleMetadataAPIVersion = clusterctl.RuleMetadataAPIVersion

// RuleMetadataCRDContract is release/clusterctl.RuleMetadataCRDContract.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleMetadataCRDContract.
//
//go:fix inline
const RuleMetadataCRDContract = clusterctl.RuleMetadataCRDContract

// RuleMetadataContract is release/clusterctl.RuleMetadataContract.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleMetadataContract.
//
//go:fix inline
const RuleMetadataContract = clusterctl.RuleMetadataContract

// RuleMetadataDocuments is release/clusterctl.RuleMetadataDocuments.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleMetadataDocuments.
//
//go:fix inline
const RuleMetadataDocuments = clusterctl.RuleMetadataDocuments

// RuleMetadataReleaseSeries is release/clusterctl.RuleMetadataReleaseSeries.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleMetadataReleaseSeries.
//
//go:fix inline
const RuleMetadataReleaseSeries = clusterctl.RuleMetadataReleaseSeries

// RuleMoreFindings is release/clusterctl.RuleMoreFindings.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleMoreFindings.
//
//go:fix inline
const RuleMoreFindings = clusterctl.RuleMoreFindings

// RuleTemplateCluster is release/clusterctl.RuleTemplateCluster.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleTemplateCluster.
//
//go:fix inline
const RuleTemplateCluster = clusterctl.RuleTemplateCluster

// RuleTemplateInfrastructureRef is release/clusterctl.RuleTemplateInfrastructureRef.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleTemplateInfrastructureRef.
//
//go:fix inline
const RuleTemplateInfrastructureRef = clusterctl.RuleTemplateInfrastructureRef

// RuleTemplateNamespace is release/clusterctl.RuleTemplateNamespace.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleTemplateNamespace.
//
//go:fix inline
const RuleTemplateNamespace = clusterctl.RuleTemplateNamespace

// RuleVariableSyntax is release/clusterctl.RuleVariableSyntax.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleVariableSyntax.
//
//go:fix inline
const RuleVariableSyntax = clusterctl.RuleVariableSyntax

// RuleVariableUnbraced is release/clusterctl.RuleVariableUnbraced.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleVariableUnbraced.
//
//go:fix inline
const RuleVariableUnbraced = clusterctl.RuleVariableUnbraced

// RuleVariableUnsupported is release/clusterctl.RuleVariableUnsupported.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.RuleVariableUnsupported.
//
//go:fix inline
const RuleVariableUnsupported = clusterctl.RuleVariableUnsupported

// ScanVariables calls release/clusterctl.ScanVariables.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.ScanVariables.
//
//go:fix inline
func ScanVariables(data []byte) ([]clusterctl.Variable, []clusterctl.VariableIssue) {
	return clusterctl.ScanVariables(data)
}

// Unclassified is release/clusterctl.Unclassified.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.Unclassified.
//
//go:fix inline
type Unclassified = clusterctl.Unclassified

// Variable is release/clusterctl.Variable.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.Variable.
//
//go:fix inline
type Variable = clusterctl.Variable

// VariableIssue is release/clusterctl.VariableIssue.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.VariableIssue.
//
//go:fix inline
type VariableIssue = clusterctl.VariableIssue

// WithMaxBytes calls release/clusterctl.WithMaxBytes.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.WithMaxBytes.
//
//go:fix inline
func WithMaxBytes(n int64) clusterctl.ReadOption {
	return clusterctl.WithMaxBytes(n)
}

// WithMaxDocuments calls release/clusterctl.WithMaxDocuments.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.WithMaxDocuments.
//
//go:fix inline
func WithMaxDocuments(n int) clusterctl.ReadOption {
	return clusterctl.WithMaxDocuments(n)
}

// WithMaxExpandedBytes calls release/clusterctl.WithMaxExpandedBytes.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.WithMaxExpandedBytes.
//
//go:fix inline
func WithMaxExpandedBytes(n int64) clusterctl.ReadOption {
	return clusterctl.WithMaxExpandedBytes(n)
}

// WithMaxFindings calls release/clusterctl.WithMaxFindings.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.WithMaxFindings.
//
//go:fix inline
func WithMaxFindings(n int) clusterctl.ReadOption {
	return clusterctl.WithMaxFindings(n)
}

// WithMaxNodes calls release/clusterctl.WithMaxNodes.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.WithMaxNodes.
//
//go:fix inline
func WithMaxNodes(n int64) clusterctl.ReadOption {
	return clusterctl.WithMaxNodes(n)
}

// YAMLFile is release/clusterctl.YAMLFile.
//
// Deprecated: use github.com/capkit/capkit/release/clusterctl.YAMLFile.
//
//go:fix inline
type YAMLFile = clusterctl.YAMLFile
